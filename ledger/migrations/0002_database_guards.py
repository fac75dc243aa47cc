"""Guards in the database itself, beyond the model's check constraints.

PostgreSQL: a deferred constraint trigger refuses, at commit, any posting whose entries do not
add up to zero for every unit (or that has no entries at all); row triggers refuse any UPDATE or
DELETE of postings, entries and parties. SQLite: row triggers refuse any UPDATE of them (DELETE
stays possible there only because the test runner empties tables with it).
"""

from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION ledger_posting_balanced() RETURNS trigger AS $$
DECLARE
  pid bigint;
  bad record;
BEGIN
  IF TG_TABLE_NAME = 'ledger_posting' THEN
    IF TG_OP = 'DELETE' THEN RETURN NULL; END IF;
    pid := NEW.id;
    IF NOT EXISTS (SELECT 1 FROM ledger_entry WHERE posting_id = pid) THEN
      RAISE EXCEPTION 'ledger: posting % has no entries', pid USING ERRCODE = 'check_violation';
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    pid := OLD.posting_id;
  ELSE
    pid := NEW.posting_id;
  END IF;
  SELECT currency, good_id, SUM(amount) AS total INTO bad
    FROM ledger_entry WHERE posting_id = pid
    GROUP BY currency, good_id HAVING SUM(amount) <> 0 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'ledger: posting % does not balance: % % sums to %',
      pid, bad.currency, coalesce(bad.good_id::text, ''), bad.total
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER ledger_entry_balanced
  AFTER INSERT OR UPDATE OR DELETE ON ledger_entry
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_posting_balanced();

CREATE CONSTRAINT TRIGGER ledger_posting_has_entries
  AFTER INSERT ON ledger_posting
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_posting_balanced();

CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'ledger: % rows are never edited or deleted', TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_entry_immutable BEFORE UPDATE OR DELETE ON ledger_entry
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_posting_immutable BEFORE UPDATE OR DELETE ON ledger_posting
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_party_immutable BEFORE UPDATE OR DELETE ON ledger_party
  FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
"""

POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS ledger_party_immutable ON ledger_party;
DROP TRIGGER IF EXISTS ledger_posting_immutable ON ledger_posting;
DROP TRIGGER IF EXISTS ledger_entry_immutable ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_refuse_change();
DROP TRIGGER IF EXISTS ledger_posting_has_entries ON ledger_posting;
DROP TRIGGER IF EXISTS ledger_entry_balanced ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_posting_balanced();
"""

SQLITE_TABLES = ("ledger_entry", "ledger_posting", "ledger_party")


def guards_up(apps, schema_editor):  # type: ignore[no-untyped-def]
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_UP, params=None)  # no placeholders: % is plpgsql's
    elif vendor == "sqlite":
        for table in SQLITE_TABLES:
            schema_editor.execute(
                f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'ledger: {table} rows are never edited'); END;"
            )


def guards_down(apps, schema_editor):  # type: ignore[no-untyped-def]
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_DOWN, params=None)
    elif vendor == "sqlite":
        for table in SQLITE_TABLES:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_update;")


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunPython(guards_up, guards_down)]
