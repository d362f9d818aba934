package filecol

import (
	"github.com/coltype-lab/lab/formats/parquet/annotate/request"
	"github.com/coltype-lab/lab/formats/parquet/footer"
)

// AnnotateTypeName names FILE's request.Type (lab annotate --file
// and --type).
const AnnotateTypeName = "file"

func init() {
	request.Register(request.Type{
		Name:   AnnotateTypeName,
		Syntax: "COLUMN:file",
		Usage: `FILE (union id 19) on a group whose children are a subset of uri,
offset, size, content_type, checksum, inline.`,
		Parse: parseAnnotateRequest,
	})
}

func parseAnnotateRequest(spec string) (request.Request, error) {
	path, err := request.ParsePlain(spec, AnnotateTypeName)
	if err != nil {
		return request.Request{}, err
	}
	return request.Request{Name: spec, Path: path, Annotation: footer.Annotation{Kind: footer.KindFile}}, nil
}
