package arrow

import (
	labpq "github.com/coltype-lab/lab/formats/parquet"
	"github.com/coltype-lab/lab/formats/parquet/vectorcol"
)

// arrowProperties are this model's write properties (labpq.NewPropertySet).
// The bindings' properties (FILE's among them) are known too
// (labpq.CheckProperties), so that their refusal can say why (NewAppender).
var arrowProperties = labpq.NewPropertySet(arrowModelName,
	[]string{labpq.PropCompressionCodec, labpq.PropCompressionLevel, labpq.PropRowGroupBytes, labpq.PropPageBytes, labpq.PropRowGroupRows,
		labpq.PropPageRowLimit, labpq.PropDictBytes, vectorcol.PropColumns, vectorcol.PropLogicalTypeID},
	map[string]string{
		labpq.PropShredVariants:          "the " + labpq.RecordModelName + " model honours it",
		labpq.PropVariantInferenceRows:   "the " + labpq.RecordModelName + " model honours it",
		labpq.PropFooterAnnotations:      "the " + labpq.RecordModelName + " model honours it",
		vectorcol.PropLayoutDefault:      "the " + labpq.RecordModelName + " model honours it; this model writes VECTOR columns as flba",
		vectorcol.PropLayoutColumn:       "the " + labpq.RecordModelName + " model honours it; this model writes VECTOR columns as flba",
		vectorcol.PropEncodingDefault:    "the " + labpq.RecordModelName + " model honours it",
		vectorcol.PropEncodingColumn:     "the " + labpq.RecordModelName + " model honours it",
		vectorcol.PropStatsEnabledColumn: "Iceberg's per-column statistics switch: the " + labpq.RecordModelName + " model honours it on VECTOR columns only",
	})
