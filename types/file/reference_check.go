package file

import "github.com/coltype-lab/lab/data/coltype"

// CheckReference applies r's policy to the uri of one FILE value as a
// writer takes it in: d is the value's column declaration and v its
// record-model value, as data/jsonrow's Codec.Check passes them, so that
// codec.Check = r.CheckReference refuses a row whose uri lab file resolve
// would refuse before it is written. Only the uri is checked (ParseReference:
// nothing is opened or fetched); a value without one, and a column of
// another type, pass.
func (r *Resolver) CheckReference(_ string, d coltype.Decl, v any) error {
	fd, ok := d.(Decl)
	if !ok {
		return nil
	}
	fv, err := fd.Value(v)
	if err != nil {
		return err
	}
	if !fv.IsSet(FieldURI) {
		return nil
	}
	_, err = r.ParseReference(*fv.URI)
	return err
}
