//! The schema, as an ordered list of migrations. `PRAGMA user_version`
//! records how many have run; a database with a larger version was written
//! by a newer lf and is refused rather than misread.

/// Each entry upgrades the schema by one version. Never edit a released
/// entry: append a new one.
pub const MIGRATIONS: &[&str] = &[
    // 1: waves, tasks, flows, sessions, runs and client receipts.
    r#"
    CREATE TABLE waves (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        repo TEXT NOT NULL,
        created_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        identifier TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL,
        -- Canonical (symlinks resolved) at registration.
        worktree TEXT,
        wave_id TEXT REFERENCES waves(id),
        created_at INTEGER NOT NULL,
        finished_at INTEGER
    ) STRICT;

    -- One flow invocation; a review Session records which one it belongs to.
    CREATE TABLE flows (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        task_id TEXT REFERENCES tasks(id),
        finished INTEGER NOT NULL DEFAULT 0,
        current_run_id TEXT,
        pending_session_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('conversation', 'flow')),
        title TEXT NOT NULL,
        title_source TEXT NOT NULL CHECK (title_source IN ('human', 'generated')),
        interactive INTEGER NOT NULL,
        -- Canonical (symlinks resolved) at creation.
        cwd TEXT NOT NULL,
        provider TEXT,
        model TEXT,
        task_id TEXT,
        wave_id TEXT,
        bound_at INTEGER,
        primary_scope TEXT,
        ready_summary TEXT,
        flow_id TEXT,
        step TEXT,
        node INTEGER,
        iterations TEXT,
        independent INTEGER NOT NULL DEFAULT 0,
        current_run_id TEXT NOT NULL,
        latest_turn TEXT CHECK (latest_turn IN ('started', 'completed')),
        permission_pending INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        completed_at INTEGER
    ) STRICT;
    CREATE INDEX sessions_open ON sessions (created_at DESC, id DESC) WHERE completed_at IS NULL;
    CREATE INDEX sessions_all ON sessions (created_at DESC, id DESC);
    CREATE UNIQUE INDEX sessions_primary ON sessions (primary_scope)
        WHERE primary_scope IS NOT NULL AND completed_at IS NULL;

    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        provider TEXT NOT NULL,
        model TEXT,
        -- JSON array: the user's argv for the `command` provider.
        argv TEXT NOT NULL DEFAULT '[]',
        prompt TEXT,
        native_id TEXT,
        prepared INTEGER NOT NULL DEFAULT 1,
        published INTEGER NOT NULL DEFAULT 0,
        launcher TEXT,
        outcome TEXT CHECK (outcome IN ('exited', 'interrupted', 'failed')),
        exit_code INTEGER,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        ended_at INTEGER
    ) STRICT;
    CREATE INDEX runs_session ON runs (session_id);

    -- Client receipts: the liveness evidence listing reads, so it never
    -- walks run directories.
    CREATE TABLE clients (
        boot_id TEXT NOT NULL,
        pid INTEGER NOT NULL,
        starttime INTEGER NOT NULL,
        run_id TEXT NOT NULL REFERENCES runs(id),
        session_id TEXT NOT NULL REFERENCES sessions(id),
        terminal_id TEXT,
        recorded_at INTEGER NOT NULL,
        ended_at INTEGER,
        PRIMARY KEY (boot_id, pid, starttime)
    ) STRICT;
    CREATE INDEX clients_open ON clients (session_id) WHERE ended_at IS NULL;
    "#,
    // 2: launching: the native id lf chose for a Run (Claude's
    // --session-id), why a launch failed, and a primary Session's successor.
    r#"
    ALTER TABLE runs ADD COLUMN chosen_native_id TEXT;
    ALTER TABLE runs ADD COLUMN diagnostic TEXT;
    ALTER TABLE sessions ADD COLUMN replaced_by TEXT;
    "#,
    // 3: interactive handoffs: an autonomous agent's terminal handed to a
    // person and back. The status is derived (outcome, else attached_at);
    // one handoff per parent body generation (a replayed open finds it),
    // and at most one without an outcome per parent.
    r#"
    CREATE TABLE handoffs (
        id TEXT PRIMARY KEY,
        parent_kind TEXT NOT NULL CHECK (parent_kind IN ('task', 'wave')),
        parent_id TEXT NOT NULL,
        wave_id TEXT,
        -- Canonical (symlinks resolved) at opening.
        cwd TEXT NOT NULL,
        provider TEXT NOT NULL,
        provider_session_id TEXT,
        body_generation INTEGER NOT NULL,
        reason TEXT NOT NULL,
        -- JSON object of names to values; values may be secret and are
        -- only ever given to the attach argv's process.
        environment TEXT NOT NULL,
        -- JSON array.
        attach_argv TEXT NOT NULL,
        attached_at INTEGER,
        outcome TEXT CHECK (outcome IN ('handed_back', 'completed', 'failed')),
        -- The summary (handed_back, completed) or the reason (failed).
        outcome_text TEXT,
        finished_at INTEGER,
        wake_claimed_by_generation INTEGER,
        wake_claimed_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX handoffs_replay ON handoffs (parent_kind, parent_id, body_generation);
    CREATE UNIQUE INDEX handoffs_active ON handoffs (parent_kind, parent_id) WHERE outcome IS NULL;
    CREATE INDEX handoffs_created ON handoffs (created_at DESC, id DESC);
    "#,
    // 4: the live-process snapshot: the identity of the lf-serve process
    // serving a Run, so the processes beneath it are attributed by
    // containment (lf::snapshot).
    r#"
    ALTER TABLE runs ADD COLUMN launcher_boot_id TEXT;
    ALTER TABLE runs ADD COLUMN launcher_pid INTEGER;
    ALTER TABLE runs ADD COLUMN launcher_starttime INTEGER;
    CREATE INDEX runs_launchers ON runs (launcher_boot_id)
        WHERE launcher_pid IS NOT NULL AND ended_at IS NULL;
    "#,
    // 5: hooks and launches update a Session by its current Run: index it,
    // or every lf-hook call scans the whole table.
    r#"
    CREATE INDEX sessions_current_run ON sessions (current_run_id);
    "#,
    // 6: truthful state with the real agent CLIs: when this launch's agent
    // confirmed its conversation (Claude's SessionStart), whether the
    // launch waits for a person at a start-up dialog (workspace trust),
    // where the agent's transcript is (lf-serve reads it for what fires no
    // hook), a resume that could not work (never repeated), and a ready
    // summary that the person's next prompt superseded.
    r#"
    ALTER TABLE runs ADD COLUMN confirmed_at INTEGER;
    ALTER TABLE runs ADD COLUMN waits_for_person INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN transcript_path TEXT;
    ALTER TABLE runs ADD COLUMN resume_failed INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN ready_superseded INTEGER NOT NULL DEFAULT 0;
    "#,
    // 7: since when each kind of attention is owed: the agent marked itself
    // ready, a permission prompt appeared, a turn completed. (A flow
    // review's is its Session's creation: it is pending from then.)
    r#"
    ALTER TABLE sessions ADD COLUMN ready_at INTEGER;
    ALTER TABLE sessions ADD COLUMN permission_at INTEGER;
    ALTER TABLE sessions ADD COLUMN turn_completed_at INTEGER;
    "#,
    // 8: the change stream (`lf-session-watch`). `attention` and
    // `attention_since` are maintained in every write transaction that
    // touches their facts (`Store::refresh_attention`), so counting and
    // jumping read an index instead of evaluating the rule for every open
    // Session; the `seen_*` columns are what the last event of a Session
    // said, so the next change is told against it. A Session from before
    // this version has no seen state until something observes it (it is
    // then adopted without an event); a closed one is plainly closed.
    // Events are numbered by `seq` in commit order, never reused.
    r#"
    ALTER TABLE sessions ADD COLUMN attention TEXT
        CHECK (attention IN ('review', 'approve', 'reply'));
    ALTER TABLE sessions ADD COLUMN attention_since INTEGER;
    ALTER TABLE sessions ADD COLUMN seen_state TEXT;
    ALTER TABLE sessions ADD COLUMN seen_title TEXT;
    ALTER TABLE sessions ADD COLUMN seen_ready_summary TEXT;
    UPDATE sessions SET seen_title = title, seen_ready_summary = ready_summary;
    UPDATE sessions SET seen_state = 'closed' WHERE completed_at IS NOT NULL;
    -- Covering: next reads the index alone, not the rows (scattered over
    -- a Home's whole history); counting read a smaller one of its own
    -- until version 9 kept the counts themselves.
    CREATE INDEX sessions_attention ON sessions (attention, attention_since, id)
        WHERE attention IS NOT NULL;
    CREATE INDEX sessions_attention_kind ON sessions (attention) WHERE attention IS NOT NULL;
    CREATE INDEX sessions_seen_active ON sessions (seen_state) WHERE seen_state = 'active';
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        from_value TEXT,
        to_value TEXT,
        -- The Session's record after the change, as JSON.
        record TEXT NOT NULL
    ) STRICT;
    "#,
    // 9: the counts `lf-session-count` prints (a tmux status line runs it
    // every few seconds), kept by the transaction that changes an
    // attention, so counting reads three rows instead of every Session
    // that waits. `sessions.attention` is only ever set by an UPDATE
    // (`refresh_attention`, as a write commits) and Sessions are never
    // deleted, so one trigger on that UPDATE keeps them.
    r#"
    CREATE TABLE attention_counts (
        attention TEXT PRIMARY KEY,
        sessions INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;
    INSERT INTO attention_counts (attention, sessions)
        SELECT owed.a, (SELECT count(*) FROM sessions s WHERE s.attention = owed.a)
        FROM (SELECT 'review' AS a UNION ALL SELECT 'approve' UNION ALL SELECT 'reply') owed;
    CREATE TRIGGER sessions_attention_counted AFTER UPDATE OF attention ON sessions
        WHEN old.attention IS NOT new.attention
    BEGIN
        UPDATE attention_counts SET sessions = sessions - 1 WHERE attention = old.attention;
        UPDATE attention_counts SET sessions = sessions + 1 WHERE attention = new.attention;
    END;
    DROP INDEX sessions_attention_kind;
    "#,
    // 10: who acted on a Session from afar (`lf-session-send`,
    // `lf-session-answer`): an event of kind `answered` names the person.
    r#"
    ALTER TABLE events ADD COLUMN by_person TEXT;
    "#,
    // 11: what each Session used (lf::usage, docs/decisions/0030-usage.md).
    // Every transcript a Session's agents wrote (a `/clear` moves a Run to
    // a new one; a resume may append to an old one), read up to `read_to`
    // bytes with what the provider's reader carries between reads; and the
    // sums read so far by Session, day and model, and the turns and times
    // by Session and day. The transcripts already known are read from
    // their start the first time usage is asked for.
    r#"
    CREATE TABLE usage_sources (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        path TEXT NOT NULL,
        provider TEXT NOT NULL,
        read_to INTEGER NOT NULL DEFAULT 0,
        -- JSON: lf::usage::Carry.
        carry TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (session_id, path)
    ) STRICT, WITHOUT ROWID;
    INSERT OR IGNORE INTO usage_sources (session_id, path, provider)
        SELECT session_id, transcript_path, provider FROM runs WHERE transcript_path IS NOT NULL;
    CREATE TABLE usage_models (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        day TEXT NOT NULL,
        model TEXT NOT NULL,
        input INTEGER NOT NULL DEFAULT 0,
        output INTEGER NOT NULL DEFAULT 0,
        cache_creation INTEGER NOT NULL DEFAULT 0,
        cache_read INTEGER NOT NULL DEFAULT 0,
        requests INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, day, model)
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE usage_time (
        session_id TEXT NOT NULL REFERENCES sessions(id),
        day TEXT NOT NULL,
        turns INTEGER NOT NULL DEFAULT 0,
        -- Microseconds.
        working INTEGER NOT NULL DEFAULT 0,
        waiting INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, day)
    ) STRICT, WITHOUT ROWID;
    "#,
    // 12: requests (docs/decisions/0032-exact-answers.md): each permission
    // dialog or question an agent waits on, with the identity lf gives it
    // when it appears, what its hook said it is for (tool, command or
    // input), and how it ended. Several may be open at once (Codex asks
    // for all the calls of a batch before it shows the first dialog); the
    // oldest is the one the Session waits on first. A Session that waited
    // on a prompt before this version gets a request that names nothing
    // (answered by what its screen shows).
    r#"
    CREATE TABLE requests (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        run_id TEXT NOT NULL,
        tool TEXT,
        input TEXT,
        since INTEGER NOT NULL,
        ended_at INTEGER,
        outcome TEXT CHECK (outcome IN
            ('allowed', 'allowed_always', 'denied', 'answered', 'superseded', 'ended'))
    ) STRICT;
    CREATE INDEX requests_open ON requests (session_id, since) WHERE ended_at IS NULL;
    INSERT INTO requests (id, session_id, run_id, since)
        SELECT 'req-' || lower(substr(hex(randomblob(13)), 1, 26)), id, current_run_id,
               COALESCE(permission_at, updated_at)
        FROM sessions WHERE permission_pending = 1 AND completed_at IS NULL;
    "#,
    // 13: the devices signed in to lf-web (lf::devices): each opened the
    // printed URL once and holds a secret of its own in a cookie; only
    // the secret's SHA-256 is kept, so the database does not sign anyone
    // in. `label` is the browser's User-Agent, made safe to show.
    r#"
    CREATE TABLE web_devices (
        id TEXT PRIMARY KEY,
        secret_sha256 TEXT NOT NULL,
        label TEXT NOT NULL,
        -- Microseconds since the epoch.
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;
    "#,
];

/// The version whose migration records the launcher of each Run.
pub const RUN_LAUNCHERS: i64 = 4;

/// The version whose migration adds the maintained `sessions.attention`,
/// computed for every open Session as it runs.
pub const MAINTAINED_ATTENTION: i64 = 8;

/// The version whose migration keeps the count of each attention
/// (`attention_counts`).
pub const ATTENTION_COUNTED: i64 = 9;

pub fn version() -> i64 {
    MIGRATIONS.len() as i64
}
