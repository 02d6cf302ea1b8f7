-- 0003: every change to vectors notifies the servers, whatever wrote it,
-- on channel huimem_vectors, when its transaction commits. The payload is
-- a JSON list of {"ns", "t"}: one time per namespace and week (Monday
-- 00:00 UTC to Monday), the week segments core/vector caches. A server
-- drops those segments from its cache.

CREATE FUNCTION notify_vectors() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	payload text;
BEGIN
	IF TG_OP = 'DELETE' THEN
		SELECT json_agg(json_build_object('ns', ns, 't', t))::text INTO payload FROM (
			SELECT ns, min(t) AS t FROM old_rows GROUP BY ns, date_trunc('week', t AT TIME ZONE 'UTC')) w;
	ELSIF TG_OP = 'INSERT' THEN
		SELECT json_agg(json_build_object('ns', ns, 't', t))::text INTO payload FROM (
			SELECT ns, min(t) AS t FROM new_rows GROUP BY ns, date_trunc('week', t AT TIME ZONE 'UTC')) w;
	ELSE
		SELECT json_agg(json_build_object('ns', ns, 't', t))::text INTO payload FROM (
			SELECT ns, min(t) AS t FROM (SELECT ns, t FROM new_rows UNION ALL SELECT ns, t FROM old_rows) r
			GROUP BY ns, date_trunc('week', t AT TIME ZONE 'UTC')) w;
	END IF;
	IF payload IS NULL THEN
		RETURN NULL;
	END IF;
	-- NOTIFY payloads must stay under 8000 bytes: past that, tell the
	-- servers to drop everything.
	IF octet_length(payload) > 7900 THEN
		payload := '"reset"';
	END IF;
	PERFORM pg_notify('huimem_vectors', payload);
	RETURN NULL;
END
$$;

CREATE TRIGGER vectors_notify_insert AFTER INSERT ON vectors
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_vectors();
CREATE TRIGGER vectors_notify_update AFTER UPDATE ON vectors
	REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_vectors();
CREATE TRIGGER vectors_notify_delete AFTER DELETE ON vectors
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_vectors();
