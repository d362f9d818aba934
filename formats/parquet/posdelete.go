package parquet

// Position deletes have no Parquet code of their own: PositionDeleteModel
// (model.go) is the registry's adapter over RecordModel, which holds the
// position-delete schema, order and pos rules once for every format
// (registry.PositionDeleteModel).
