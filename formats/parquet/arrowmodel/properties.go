package arrowmodel

import (
	labpq "github.com/coltype-lab/lab/formats/parquet"
)

// arrowProperties are this model's write properties (labpq.NewPropertySet).
// The bindings' properties (FILE's among them) are known too
// (labpq.CheckProperties), so that their refusal can say why (NewAppender).
var arrowProperties = labpq.NewPropertySet(arrowModelName,
	[]string{labpq.PropCompressionCodec, labpq.PropCompressionLevel, labpq.PropRowGroupBytes, labpq.PropPageBytes, labpq.PropRowGroupRows,
		labpq.PropPageRowLimit, labpq.PropDictBytes, labpq.PropVectorColumns, labpq.PropVectorLogicalTypeID},
	map[string]string{
		labpq.PropShredVariants:         "the " + labpq.RecordModelName + " model honours it",
		labpq.PropVariantInferenceRows:  "the " + labpq.RecordModelName + " model honours it",
		labpq.PropFooterAnnotations:     "the " + labpq.RecordModelName + " model honours it",
		labpq.PropVectorLayoutDefault:   "the " + labpq.RecordModelName + " model honours it; this model writes VECTOR columns as flba",
		labpq.PropVectorLayoutColumn:    "the " + labpq.RecordModelName + " model honours it; this model writes VECTOR columns as flba",
		labpq.PropVectorEncodingDefault: "the " + labpq.RecordModelName + " model honours it",
		labpq.PropVectorEncodingColumn:  "the " + labpq.RecordModelName + " model honours it",
		labpq.PropStatsEnabledColumn:    "Iceberg's per-column statistics switch: the " + labpq.RecordModelName + " model honours it on VECTOR columns only",
	})
