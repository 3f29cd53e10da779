//! The devices signed in to lf-web: a row each, with the SHA-256 of its
//! secret (never the secret), its label and when it was made and last
//! seen. The rules (what a sign-in is, how long it lasts) are in
//! `crate::devices`.

use super::Store;
use crate::Result;
use crate::ids::DeviceId;
use rusqlite::{OptionalExtension, params};

/// One stored device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRow {
    pub id: DeviceId,
    pub secret_sha256: String,
    pub label: String,
    pub created_at: i64,
    pub last_seen_at: i64,
}

const COLUMNS: &str = "id, secret_sha256, label, created_at, last_seen_at";

fn row(row: &rusqlite::Row<'_>) -> rusqlite::Result<DeviceRow> {
    Ok(DeviceRow {
        id: row.get(0)?,
        secret_sha256: row.get(1)?,
        label: row.get(2)?,
        created_at: row.get(3)?,
        last_seen_at: row.get(4)?,
    })
}

impl Store {
    /// Add a device, and forget those last seen before `stale_before`.
    pub(crate) fn add_device(&self, device: &DeviceRow, stale_before: i64) -> Result<()> {
        let tx = self.write()?;
        tx.execute(
            "DELETE FROM web_devices WHERE last_seen_at < ?1",
            [stale_before],
        )?;
        tx.execute(
            &format!("INSERT INTO web_devices ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5)"),
            params![
                device.id,
                device.secret_sha256,
                device.label,
                device.created_at,
                device.last_seen_at
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    pub(crate) fn device(&self, id: &DeviceId) -> Result<Option<DeviceRow>> {
        Ok(self
            .conn()
            .prepare_cached(&format!("SELECT {COLUMNS} FROM web_devices WHERE id = ?1"))?
            .query_row([id], row)
            .optional()?)
    }

    /// Devices seen since `seen_since`, most recently seen first.
    pub(crate) fn devices(&self, seen_since: i64) -> Result<Vec<DeviceRow>> {
        Ok(self
            .conn()
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM web_devices WHERE last_seen_at >= ?1 \
                 ORDER BY last_seen_at DESC, id"
            ))?
            .query_map([seen_since], row)?
            .collect::<rusqlite::Result<_>>()?)
    }

    pub(crate) fn touch_device(&self, id: &DeviceId, now: i64) -> Result<()> {
        let tx = self.write()?;
        tx.execute(
            "UPDATE web_devices SET last_seen_at = ?2 WHERE id = ?1",
            params![id, now],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Remove devices: one, or every one (`None`). What was removed.
    pub(crate) fn remove_devices(&self, id: Option<&DeviceId>) -> Result<Vec<DeviceRow>> {
        let tx = self.write()?;
        let removed = tx
            .prepare(&format!(
                "DELETE FROM web_devices WHERE ?1 IS NULL OR id = ?1 RETURNING {COLUMNS}"
            ))?
            .query_map([id], row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        tx.commit()?;
        Ok(removed)
    }
}
