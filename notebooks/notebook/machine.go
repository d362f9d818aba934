package notebook

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// Machine describes where a page's figures were measured. Benchmarks on a
// shared machine are only comparable with this beside them.
type Machine struct {
	CPUs      int
	CPUModel  string // from /proc/cpuinfo; empty where unknown
	GOOS      string
	GOARCH    string
	GoVersion string
	// LoadAvg is /proc/loadavg's 1, 5 and 15 minute averages when the run
	// started; empty where the file does not exist.
	LoadAvg string
	Date    time.Time
}

// ThisMachine describes the running machine now.
func ThisMachine() Machine {
	return Machine{
		CPUs:      runtime.NumCPU(),
		CPUModel:  cpuModel(),
		GOOS:      runtime.GOOS,
		GOARCH:    runtime.GOARCH,
		GoVersion: runtime.Version(),
		LoadAvg:   loadAvg(),
		Date:      time.Now().UTC(),
	}
}

// String is the one-line description the page's setup shows.
func (m Machine) String() string {
	s := fmt.Sprintf("%d CPUs", m.CPUs)
	if m.CPUModel != "" {
		s += " (" + m.CPUModel + ")"
	}
	s += fmt.Sprintf(", %s/%s, %s", m.GOOS, m.GOARCH, m.GoVersion)
	if m.LoadAvg != "" {
		s += ", load average " + m.LoadAvg + " at start"
	}
	return s
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return ""
}
