//! Client receipts: `(boot_id, pid, starttime)` of each process that shows a
//! Session to a person, with its terminal. Kept in the database so that
//! listing checks liveness with one small query and a few `/proc` reads.

use super::Store;
use crate::Result;
use crate::liveness::ProcessIdentity;
use rusqlite::params;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientReceipt {
    pub session_id: String,
    pub run_id: String,
    pub process: ProcessIdentity,
    /// The tmux pane id (`%12`), else the tty.
    pub terminal_id: Option<String>,
}

impl Store {
    pub fn record_client(&self, receipt: &ClientReceipt, now: i64) -> Result<()> {
        let tx = self.write()?;
        insert_client(&tx, receipt, now)?;
        tx.commit()?;
        Ok(())
    }

    /// Mark a client ended (its process exited or was stopped).
    pub fn end_client(&self, process: &crate::liveness::ProcessIdentity, now: i64) -> Result<()> {
        let tx = self.write()?;
        end_client_in(&tx, process, now)?;
        tx.commit()?;
        Ok(())
    }

    /// Open receipts of one Run.
    pub fn open_clients_of_run(&self, run: &str) -> Result<Vec<ClientReceipt>> {
        self.query_clients("ended_at IS NULL AND run_id = ?1", run)
    }

    /// The Sessions that have a receipt not yet known to have ended.
    pub fn sessions_with_open_clients(&self) -> Result<Vec<String>> {
        let mut statement = self
            .conn()
            .prepare_cached("SELECT DISTINCT session_id FROM clients WHERE ended_at IS NULL")?;
        Ok(statement
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?)
    }

    /// Receipts not yet known to have ended, of one Session or of all.
    /// (Two statements: `?1 IS NULL OR session_id = ?1` would keep SQLite
    /// from using the index of open receipts.)
    pub fn open_clients(&self, session: Option<&str>) -> Result<Vec<ClientReceipt>> {
        match session {
            Some(session) => self.query_clients("session_id = ?1 AND ended_at IS NULL", session),
            None => self.query_clients("ended_at IS NULL AND ?1 IS NULL", session),
        }
    }

    fn query_clients(
        &self,
        condition: &str,
        param: impl rusqlite::ToSql,
    ) -> Result<Vec<ClientReceipt>> {
        let sql = format!(
            "SELECT boot_id, pid, starttime, run_id, session_id, terminal_id FROM clients WHERE {condition}"
        );
        let mut statement = self.conn().prepare_cached(&sql)?;
        let rows = statement.query_map([param], |row| {
            Ok(ClientReceipt {
                process: ProcessIdentity {
                    boot_id: row.get(0)?,
                    pid: row.get(1)?,
                    starttime: row.get::<_, i64>(2)? as u64,
                },
                run_id: row.get(3)?,
                session_id: row.get(4)?,
                terminal_id: row.get(5)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

pub(super) fn insert_client(
    tx: &rusqlite::Transaction<'_>,
    receipt: &ClientReceipt,
    now: i64,
) -> Result<()> {
    tx.execute(
        "INSERT OR REPLACE INTO clients (boot_id, pid, starttime, run_id, session_id, terminal_id, recorded_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            receipt.process.boot_id,
            receipt.process.pid,
            receipt.process.starttime as i64,
            receipt.run_id,
            receipt.session_id,
            receipt.terminal_id,
            now
        ],
    )?;
    Ok(())
}

pub(super) fn end_client_in(
    tx: &rusqlite::Transaction<'_>,
    process: &crate::liveness::ProcessIdentity,
    now: i64,
) -> Result<()> {
    tx.execute(
        "UPDATE clients SET ended_at = ?4 WHERE boot_id = ?1 AND pid = ?2 AND starttime = ?3 AND ended_at IS NULL",
        params![process.boot_id, process.pid, process.starttime as i64, now],
    )?;
    Ok(())
}
