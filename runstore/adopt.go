package runstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/memlab/memlab/record"
)

// adoptLegacy, inside tryBegin's transaction, finds a run stored under
// spec's legacy id (record.Spec.LegacyID: the id of the same config before
// component specs) and re-keys it, with every row of every table that
// refers to it by run_id, to id, storing spec's JSON in place of the
// legacy one: the run is then resumed, not asked again. It reports whether
// there was such a run. A run under the legacy id with another spec is an
// inconsistent store, an error.
func (s *Store) adoptLegacy(ctx context.Context, tx *sql.Tx, id string, spec record.Spec) (bool, error) {
	if spec.Scheme == record.SchemeLegacy {
		return false, nil
	}
	old := spec.LegacyID()
	if old == id {
		return false, nil
	}
	var stored string
	err := tx.QueryRowContext(ctx, s.q(`SELECT spec FROM runs WHERE id = ?`+s.forUpdate()), old).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up legacy run %s: %w", old, err)
	}
	if stored != spec.LegacyJSON() {
		return false, fmt.Errorf("runstore: legacy run %s in %s has another spec (%s) than this config (%s): the store is inconsistent; delete the run",
			old, s.path, stored, spec.LegacyJSON())
	}
	tables, err := s.runIDTables(ctx, tx)
	if err != nil {
		return false, fmt.Errorf("list the tables of runs: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE runs SET id = ?, spec = ? WHERE id = ?`), id, spec.JSON(), old); err != nil {
		return false, fmt.Errorf("re-key legacy run %s as %s: %w", old, id, err)
	}
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE "`+t+`" SET run_id = ? WHERE run_id = ?`), id, old); err != nil {
			return false, fmt.Errorf("re-key legacy run %s as %s in table %s: %w", old, id, t, err)
		}
	}
	return true, nil
}
