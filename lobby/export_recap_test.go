package lobby

// RecapBuilt reports whether league id's recap export kind (recap-csv,
// recap-svg-en, recap-svg-ko) of its change n (its count of records) is
// kept built.
func (lb *Lobby) RecapBuilt(id string, n int, kind string) bool {
	_, ok := lb.built.get("league-"+id, uint64(n), kind)
	return ok
}
