//! The devices signed in to lf-web. Opening the printed URL (the Home's
//! token in `?token=`) signs in *that* device: lf makes it a secret of its
//! own (32 random bytes from the OS, as hex), keeps only the secret's
//! SHA-256 with an id, a label (its browser's User-Agent, made safe to
//! show) and when it was made and last seen, and the browser keeps
//! `<id>.<secret>` in a cookie. The Home's token never goes into a cookie,
//! so a cookie that leaks (another server on the same host, which receives
//! every cookie of 127.0.0.1) is one device's, revocable on its own, and
//! lapses when unused. The person lists and revokes devices from the
//! terminal (`lf-web devices`, `lf-web revoke`).

use crate::Lf;
use crate::Result;
use crate::clock::Timestamp;
use crate::error::domain::{Domain, ErrorKind};
use crate::error::untrusted::quote;
use crate::ids::DeviceId;
use crate::store::DeviceRow;
use crate::wire::Device;
use sha2::{Digest, Sha256};

/// How long a sign-in lasts unused: a device not seen for this long is
/// signed out (its cookie's Max-Age is the same, renewed as it is used).
pub const SIGN_IN_DAYS: i64 = 30;
const SIGN_IN_MICROS: i64 = SIGN_IN_DAYS * 24 * 3600 * 1_000_000;
/// How often a device's `last_seen_at` (and its cookie) is renewed: a
/// page fetches its part every few seconds, and a write each time would
/// hold the store for nothing.
const SEEN_EVERY_MICROS: i64 = 3600 * 1_000_000;
/// The most characters of a label (a User-Agent is about 150).
pub const LABEL_MAX: usize = 200;

/// A device lf-web cannot find or use.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum DeviceError {
    #[error("no device {} is signed in to lf-web (lf-web devices lists them)", quote(.0))]
    DeviceNotFound(String),
}

impl Domain for DeviceError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::NotFound
    }

    fn name(&self) -> &str {
        self.into()
    }
}

/// A device just signed in: its record, and what its cookie holds
/// (`<id>.<secret>`; shown to no one else and stored nowhere).
#[derive(Debug)]
pub struct SignIn {
    pub device: Device,
    pub cookie: String,
}

/// A device its cookie signs in: its record, and whether its last use
/// was renewed now (then its cookie's Max-Age is renewed too).
#[derive(Debug)]
pub struct SignedIn {
    pub device: Device,
    pub renewed: bool,
}

impl Lf {
    /// Sign in a new device, labelled with what its browser says it is.
    /// Devices unused past [`SIGN_IN_DAYS`] are forgotten meanwhile.
    pub fn sign_in_device(&self, user_agent: &str) -> Result<SignIn> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|error| {
            crate::Error::io(
                "cannot make a device's sign-in secret",
                std::io::Error::other(error.to_string()),
            )
        })?;
        let secret = hex(&secret);
        let now = self.caller.now().micros();
        let row = DeviceRow {
            id: DeviceId::new(),
            secret_sha256: digest(&secret),
            label: label(user_agent),
            created_at: now,
            last_seen_at: now,
        };
        self.store()?.add_device(&row, now - SIGN_IN_MICROS)?;
        Ok(SignIn {
            cookie: format!("{}.{secret}", row.id.as_str()),
            device: record(&row),
        })
    }

    /// The device a cookie's value signs in: `None` for anything that is
    /// not a current device's `<id>.<secret>` (unknown, revoked, unused
    /// past [`SIGN_IN_DAYS`], another Home's, the Home's token itself).
    pub fn signed_in_device(&self, cookie: &str) -> Result<Option<SignedIn>> {
        let Some((id, secret)) = cookie.split_once('.') else {
            return Ok(None);
        };
        let Ok(id) = DeviceId::parse(id) else {
            return Ok(None);
        };
        let store = self.store()?;
        let Some(mut row) = store.device(&id)? else {
            return Ok(None);
        };
        let now = self.caller.now().micros();
        if !same(digest(secret).as_bytes(), row.secret_sha256.as_bytes())
            || row.last_seen_at < now - SIGN_IN_MICROS
        {
            return Ok(None);
        }
        let renewed = row.last_seen_at < now - SEEN_EVERY_MICROS;
        if renewed {
            store.touch_device(&id, now)?;
            row.last_seen_at = now;
        }
        Ok(Some(SignedIn {
            device: record(&row),
            renewed,
        }))
    }

    /// The devices signed in now, most recently seen first.
    pub fn devices(&self) -> Result<Vec<Device>> {
        let since = self.caller.now().micros() - SIGN_IN_MICROS;
        Ok(self.store()?.devices(since)?.iter().map(record).collect())
    }

    /// Sign out one device (its id as `lf-web devices` prints it): its
    /// cookie signs in nothing from now on.
    pub fn revoke_device(&self, id: &str) -> Result<Device> {
        let parsed = DeviceId::parse(id)?;
        let removed = self.store()?.remove_devices(Some(&parsed))?;
        match removed.first() {
            Some(row) => Ok(record(row)),
            None => Err(DeviceError::DeviceNotFound(id.to_owned()).into()),
        }
    }

    /// Sign out every device (`lf-web revoke --all`, `lf-web --new-token`).
    pub fn revoke_devices(&self) -> Result<Vec<Device>> {
        Ok(self
            .store()?
            .remove_devices(None)?
            .iter()
            .map(record)
            .collect())
    }
}

fn record(row: &DeviceRow) -> Device {
    Device {
        id: row.id.as_str().to_owned(),
        label: row.label.clone(),
        created_at: Timestamp(row.created_at),
        last_seen_at: Timestamp(row.last_seen_at),
        expires_at: Timestamp(row.last_seen_at.saturating_add(SIGN_IN_MICROS)),
    }
}

/// What a browser says it is, made safe to show: what reorders or hides
/// text and control characters dropped, spaces collapsed, bounded.
fn label(user_agent: &str) -> String {
    let kept: String = user_agent
        .chars()
        .map(|c| if crate::input::is_unsafe(c) { ' ' } else { c })
        .collect();
    let words: Vec<&str> = kept.split_whitespace().collect();
    let label = words.join(" ");
    match label.chars().count() {
        0 => "a browser that did not say what it is".to_owned(),
        count if count > LABEL_MAX => {
            let cut: String = label.chars().take(LABEL_MAX - 1).collect();
            format!("{}…", cut.trim_end())
        }
        _ => label,
    }
}

fn digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Equal, in time that does not depend on where they differ (both are
/// digests of the same length, so the length tells nothing).
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_what_the_browser_says_made_safe_and_bounded() {
        assert_eq!(
            label("Mozilla/5.0 (Linux; Android 14)\u{1b}[2J\u{202e}x"),
            "Mozilla/5.0 (Linux; Android 14) [2J x"
        );
        assert_eq!(label(""), "a browser that did not say what it is");
        assert_eq!(label(&"x".repeat(10_000)).chars().count(), LABEL_MAX);
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same(b"abcd", b"abcd"));
        assert!(!same(b"abcd", b"abce"));
        assert!(!same(b"abc", b"abcd"));
    }
}
