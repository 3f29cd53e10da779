//! Identifiers and their strict formats. An id from a user, an environment
//! variable or a hook payload is parsed here before it reaches the store, a
//! path or a tmux target, so nothing downstream ever sees an unchecked id;
//! Session and Run ids read back from the store pass the same check
//! (`FromSql`), so they arrive typed and are never parsed again. Text a
//! person typed for a Session becomes one in one place, `Lf::resolve`.

use crate::Result;
use crate::error::domain::{Arg, What};
use crate::input::InputError;
use std::fmt;

/// Test-only: a seed for the ids lf makes (Session and Run ids), as jj's
/// `JJ_RANDOMNESS_SEED`, so a test pins a whole line that names a new
/// Session instead of redacting its id. Read through `Caller::new_session_id`
/// and `Caller::new_run_id`; no person sets it. The seed makes the sequence
/// of one process deterministic: its n-th id is drawn from the seed and n,
/// so two processes given one seed make the same ids. A test that needs ids
/// distinct across processes gives each its own seed. A Run id keeps its
/// creation time, which is the caller's clock (`LF_TEST_NOW` fixes it too).
pub const TEST_SEED_ENV: &str = "LF_TEST_SEED";

/// Crockford's base32 alphabet, lowercase: no i, l, o or u.
const BASE32: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        /// Read as text wherever text is wanted (a message, a path, SQL):
        /// an id is checked once, when it is made, and only read after.
        impl std::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }
    };
}

string_id!(
    /// A Session: 32 lowercase hexadecimal characters.
    SessionId
);
string_id!(
    /// A Run: `run-` and 26 base32 characters, ordered by creation time.
    RunId
);
string_id!(
    /// A Task: `task-` and 26 base32 characters.
    TaskId
);
string_id!(
    /// A Wave: `wave-` and 26 base32 characters.
    WaveId
);
string_id!(
    /// An interactive handoff: `handoff-` and 26 base32 characters.
    HandoffId
);
string_id!(
    /// A request an agent waits on (a permission dialog, a question):
    /// `req-` and 26 base32 characters, given when it appears.
    RequestId
);
string_id!(
    /// A device signed in to lf-web: `device-` and 26 base32 characters.
    DeviceId
);
string_id!(
    /// A tmux pane: `%` and digits, the only form lf passes to tmux as a
    /// pane target.
    PaneId
);

impl PaneId {
    /// A pane id, or `None` for anything else (a tty path, or text that
    /// tmux would read as another kind of target).
    pub fn parse(text: &str) -> Option<Self> {
        let digits = text.strip_prefix('%')?;
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| PaneId(text.to_owned()))
    }
}

impl SessionId {
    pub fn new() -> Self {
        SessionId(uuid::Uuid::new_v4().simple().to_string())
    }
    pub fn parse(text: &str) -> Result<Self> {
        if is_session_id(text) {
            Ok(SessionId(text.to_owned()))
        } else {
            Err(InputError::BadId {
                arg: Arg::Id,
                what: "Session id",
                text: text.to_owned(),
                expected: "32 lowercase hexadecimal characters",
            }
            .into())
        }
    }
    /// The next Session id of a seeded sequence (see [`TEST_SEED_ENV`]): a
    /// version-4 UUID whose random bits come from the seed.
    pub(crate) fn seeded(seed: &str) -> Self {
        let bytes = seeded_bytes(seed);
        let mut random = [0; 16];
        random.copy_from_slice(&bytes[..16]);
        let uuid = uuid::Builder::from_random_bytes(random).into_uuid();
        SessionId(uuid.simple().to_string())
    }
    /// A Session id derived from stable text, such as a flow position.
    pub fn derived(text: &str) -> Self {
        use sha2::Digest;
        SessionId(hex(&sha2::Sha256::digest(text.as_bytes())[..16]))
    }
}

impl Default for SessionId {
    fn default() -> Self {
        Self::new()
    }
}

fn is_session_id(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(is_lower_hex)
}

fn is_lower_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

fn is_prefixed_ulid(text: &str, prefix: &str) -> bool {
    text.strip_prefix(prefix)
        .is_some_and(|rest| rest.len() == 26 && rest.bytes().all(|b| BASE32.contains(&b)))
}

macro_rules! ulid_id {
    ($name:ident, $prefix:literal, $what:literal, $arg:expr) => {
        impl $name {
            pub const PREFIX: &'static str = $prefix;
            pub fn new() -> Self {
                $name(format!("{}{}", $prefix, ulid()))
            }
            pub fn parse(text: &str) -> Result<Self> {
                if is_prefixed_ulid(text, $prefix) {
                    Ok($name(text.to_owned()))
                } else {
                    Err(InputError::BadId {
                        arg: $arg,
                        what: concat!($what, " id"),
                        text: text.to_owned(),
                        expected: concat!($prefix, " and 26 base32 characters"),
                    }
                    .into())
                }
            }
            /// Whether the text has this id's prefix (and so is meant as one).
            pub fn looks_like(text: &str) -> bool {
                text.starts_with($prefix)
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }
    };
}

/// An id stored in the database is written as its text and read back
/// through its parser: a row whose id is not one (a database changed by
/// hand) fails to read, so no unchecked id leaves the store either.
macro_rules! stored_id {
    ($name:ident, $what:literal, $valid:expr) => {
        impl rusqlite::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.0.as_str()))
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                let text = value.as_str()?;
                if !$valid(text) {
                    let error = format!("{text:?} is not a {} id", $what);
                    return Err(rusqlite::types::FromSqlError::Other(error.into()));
                }
                Ok($name(text.to_owned()))
            }
        }
    };
}

stored_id!(SessionId, "Session", is_session_id);
stored_id!(RunId, "Run", |text| is_prefixed_ulid(text, RunId::PREFIX));
stored_id!(RequestId, "request", |text| is_prefixed_ulid(
    text,
    RequestId::PREFIX
));

ulid_id!(RunId, "run-", "Run", Arg::Id);
ulid_id!(TaskId, "task-", "Task", Arg::Task);
ulid_id!(WaveId, "wave-", "Wave", Arg::Wave);
ulid_id!(HandoffId, "handoff-", "handoff", Arg::Id);
ulid_id!(RequestId, "req-", "request", Arg::Request);
ulid_id!(DeviceId, "device-", "device", Arg::Id);
stored_id!(DeviceId, "device", |text| is_prefixed_ulid(
    text,
    DeviceId::PREFIX
));

impl RunId {
    /// The next Run id of a seeded sequence (see [`TEST_SEED_ENV`]), made
    /// at `millis` since the Unix epoch: ordered within one process, as
    /// [`RunId::new`]'s are.
    pub(crate) fn seeded(seed: &str, millis: u64) -> Self {
        RunId(format!("{}{}", RunId::PREFIX, seeded_ulid(seed, millis)))
    }
}

/// The fewest characters of an id a person may type for the whole id
/// (after `run-` for a Run): six hexadecimal characters are 16.7 million
/// values, so among ten thousand Sessions a given prefix names another one
/// too about once in 1,700 times, and then lf asks for more;
/// docs/decisions/0003-identity.md says why not four.
pub const MIN_PREFIX: usize = 6;

/// How many characters of a Session id lf shows where a person reads it
/// (the picker, messages), as the README's `.id[0:8]` does.
pub const SHORT_ID: usize = 8;

/// The first [`SHORT_ID`] characters of an id, for a person to read.
pub fn short_id(id: &str) -> &str {
    id.get(..SHORT_ID).unwrap_or(id)
}

/// What a user may pass where a Session is meant: its id, or the id of its
/// current Run (what `$LF_RUN_ID` holds inside an agent), or the first
/// [`MIN_PREFIX`] or more characters of either (`run-` and the characters
/// after it for a Run). A prefix names a Session only once the library has
/// looked it up (`Lf::resolve`): that is the one place text becomes a Session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionSelector {
    Session(SessionId),
    Run(RunId),
    /// The start of a Session id: lowercase hexadecimal, shorter than an id.
    SessionPrefix(String),
    /// The start of a Run id, `run-` included.
    RunPrefix(String),
}

impl SessionSelector {
    pub fn parse(text: &str) -> Result<Self> {
        if RunId::looks_like(text) {
            let rest = &text[RunId::PREFIX.len()..];
            if rest.len() < 26 && rest.bytes().all(|b| BASE32.contains(&b)) {
                return prefix(text, rest.len(), "Run", SessionSelector::RunPrefix);
            }
            return RunId::parse(text).map(SessionSelector::Run);
        }
        if is_session_id(text) {
            return Ok(SessionSelector::Session(SessionId(text.to_owned())));
        }
        if !text.is_empty() && text.len() < 32 && text.bytes().all(is_lower_hex) {
            return prefix(text, text.len(), "Session", SessionSelector::SessionPrefix);
        }
        Err(InputError::BadSelector(text.to_owned()).into())
    }

    /// Whether this names a Session by a prefix, still to be looked up.
    pub fn is_prefix(&self) -> bool {
        matches!(
            self,
            SessionSelector::SessionPrefix(_) | SessionSelector::RunPrefix(_)
        )
    }
}

/// A prefix of `count` id characters, if that is enough.
fn prefix(
    text: &str,
    count: usize,
    what: What,
    selector: fn(String) -> SessionSelector,
) -> Result<SessionSelector> {
    if count < MIN_PREFIX {
        return Err(InputError::PrefixTooShort {
            text: text.to_owned(),
            what,
            min: MIN_PREFIX,
        }
        .into());
    }
    Ok(selector(text.to_owned()))
}

impl fmt::Display for SessionSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionSelector::Session(id) => id.fmt(f),
            SessionSelector::Run(id) => id.fmt(f),
            SessionSelector::SessionPrefix(text) | SessionSelector::RunPrefix(text) => {
                f.write_str(text)
            }
        }
    }
}

/// A 26-character ULID (48 bits of milliseconds, then 80 random bits) in
/// lowercase: monotonic within this process, even within a millisecond.
fn ulid() -> String {
    static GENERATOR: std::sync::Mutex<ulid::Generator> =
        std::sync::Mutex::new(ulid::Generator::new());
    let generated = GENERATOR
        .lock()
        .map_err(|_| ())
        .and_then(|mut generator| generator.generate().map_err(|_| ()));
    // Overflow needs 2^80 ids in one millisecond; a poisoned lock a panic
    // elsewhere. Either way a fresh random ULID is still a valid id.
    generated
        .unwrap_or_else(|()| ulid::Ulid::generate())
        .to_string()
        .to_ascii_lowercase()
}

/// How many seeded ids this process has made: the n in "the seed's n-th id".
static SEEDED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The bytes of this process's next seeded id: sha256 of the seed and n.
fn seeded_bytes(seed: &str) -> [u8; 32] {
    use sha2::Digest;
    let n = SEEDED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    sha2::Sha256::digest(format!("{seed}\n{n}").as_bytes()).into()
}

/// A seeded ULID: its time, then 48 bits from the seed and a 32-bit count
/// of this process's seeded ids, so later ids sort after earlier ones even
/// within a millisecond (and under a fixed clock).
fn seeded_ulid(seed: &str, millis: u64) -> String {
    use sha2::Digest;
    let n = SEEDED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let digest = sha2::Sha256::digest(seed.as_bytes());
    let mut high = [0; 8];
    high[2..].copy_from_slice(&digest[..6]);
    let random = (u128::from(u64::from_be_bytes(high)) << 32) | u128::from(n as u32);
    ulid::Ulid::from_parts(millis, random)
        .to_string()
        .to_ascii_lowercase()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Hex of the first 16 bytes of a sha256: the file name of a lock.
pub fn short_digest(text: &str) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(text.as_bytes())[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_ids_parse_back() {
        assert!(SessionId::parse(SessionId::new().as_str()).is_ok());
        assert!(RunId::parse(RunId::new().as_str()).is_ok());
        assert!(TaskId::parse(TaskId::new().as_str()).is_ok());
        assert!(WaveId::parse(WaveId::new().as_str()).is_ok());
    }

    #[test]
    fn run_ids_are_ordered_even_within_a_millisecond() {
        let ids: Vec<RunId> = (0..1000).map(|_| RunId::new()).collect();
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
        let sessions: std::collections::HashSet<_> = (0..1000).map(|_| SessionId::new()).collect();
        assert_eq!(sessions.len(), 1000);
    }

    #[test]
    fn a_seed_makes_valid_ordered_ids() {
        let session = SessionId::seeded("7");
        assert!(is_session_id(&session), "{session}");
        assert_ne!(session, SessionId::seeded("7"), "the count moves on");
        let (first, second) = (RunId::seeded("7", 1_000), RunId::seeded("7", 1_000));
        assert!(
            RunId::parse(&first).is_ok() && first < second,
            "{first} {second}"
        );
    }

    #[test]
    fn malformed_ids_are_refused() {
        for bad in [
            "",
            "ABCDEF0123456789abcdef0123456789",
            "0123456789abcdef0123456789abcde",
            "../../etc/passwd",
            "0123456789abcdef0123456789abcdef0",
        ] {
            assert!(SessionId::parse(bad).is_err(), "{bad}");
            if bad.len() != 31 {
                assert_eq!(
                    SessionSelector::parse(bad).unwrap_err().kind(),
                    crate::ErrorKind::Usage,
                    "{bad}"
                );
            }
        }
        assert!(RunId::parse("run-0123456789abcdefghjkmnpqrs").is_ok());
        assert!(RunId::parse("run-0123456789abcdefghjkmnpqru").is_err());
        assert!(RunId::parse("run-../x").is_err());
    }

    #[test]
    fn prefixes_of_six_or_more_id_characters_are_selectors() {
        let prefix = |text: &str| SessionSelector::SessionPrefix(text.to_owned());
        assert_eq!(SessionSelector::parse("be336c").unwrap(), prefix("be336c"));
        assert_eq!(
            SessionSelector::parse("0123456789abcdef0123456789abcde").unwrap(),
            prefix("0123456789abcdef0123456789abcde")
        );
        assert_eq!(
            SessionSelector::parse("run-01jx4q").unwrap(),
            SessionSelector::RunPrefix("run-01jx4q".to_owned())
        );
        for short in ["be336", "run-01jx4"] {
            let error = SessionSelector::parse(short).unwrap_err();
            assert!(
                matches!(
                    error,
                    crate::Error::Input(InputError::PrefixTooShort {
                        min: MIN_PREFIX,
                        ..
                    })
                ),
                "{short}: {error}"
            );
            assert_eq!(error.kind(), crate::ErrorKind::Usage);
        }
        // Only lowercase id characters: anything else is not an id at all.
        for bad in ["BE336CC7", "be336cc7!", "run-01jx4u", "run-"] {
            assert!(
                !SessionSelector::parse(bad).is_ok_and(|selector| selector.is_prefix()),
                "{bad}"
            );
        }
        assert_eq!(short_id("be336cc70123"), "be336cc7");
    }

    #[test]
    fn selectors_tell_sessions_from_runs() {
        let session = SessionId::new();
        let run = RunId::new();
        assert_eq!(
            SessionSelector::parse(session.as_str()).unwrap(),
            SessionSelector::Session(session)
        );
        assert_eq!(
            SessionSelector::parse(run.as_str()).unwrap(),
            SessionSelector::Run(run)
        );
    }
}
