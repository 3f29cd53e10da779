//! Reading what the agents appended to their transcripts since the last
//! read: every file is read from its stored offset to its last complete
//! line, outside any transaction, and the reads are applied in one write
//! (`Store::apply_usage`, which drops a read another reader overtook).

use super::{Carry, Tally};
use crate::Result;
use crate::provider::Provider;
use crate::store::{Store, UsageRead, UsageSource};
use std::io::{Read, Seek, SeekFrom};

/// What a refresh read.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Refreshed {
    /// Transcripts that had grown.
    pub read: usize,
    /// Bytes read (a provider's own records, OpenCode's database, add how
    /// far their offset moved).
    pub bytes: u64,
    /// Transcripts that could not be read as they are: `(path, why)`.
    /// Their sums stay as they were.
    pub problems: Vec<(String, String)>,
}

/// Read what was appended to every Session's transcripts.
pub(crate) fn refresh(store: &Store) -> Result<Refreshed> {
    refresh_sessions(store, None)
}

/// Read what was appended to the transcripts of these Sessions (all when
/// `None`).
pub(crate) fn refresh_sessions(store: &Store, sessions: Option<&[String]>) -> Result<Refreshed> {
    let mut refreshed = Refreshed::default();
    let mut reads = Vec::new();
    let mut sources = store.usage_sources(sessions)?;
    // Files that belong to a conversation beside its transcript (Claude's
    // and Gemini's subagents) are sources of their own once they appear.
    let mut found = Vec::new();
    for source in &sources {
        let Ok(provider) = Provider::parse(&source.provider) else {
            continue;
        };
        for path in provider.usage_companions(std::path::Path::new(&source.path)) {
            let path = path.display().to_string();
            if !sources
                .iter()
                .any(|known| known.session_id == source.session_id && known.path == path)
            {
                found.push(UsageSource {
                    session_id: source.session_id.clone(),
                    path,
                    provider: source.provider.clone(),
                    read_to: 0,
                    carry: "{}".to_owned(),
                });
            }
        }
    }
    if !found.is_empty() {
        store.add_usage_sources(&found)?;
        sources.extend(found);
    }
    for source in sources {
        match read_source(&source) {
            Ok(Some(read)) => {
                refreshed.bytes += read.read_to.saturating_sub(source.read_to);
                if read.tally.refused > 0 {
                    refreshed.problems.push((
                        source.path.clone(),
                        format!(
                            "{} model request(s) not counted: their token counts are negative or \
                             over {} per request, which no model uses",
                            read.tally.refused,
                            super::MOST_PER_REQUEST
                        ),
                    ));
                }
                reads.push(read);
            }
            Ok(None) => {}
            Err(why) => refreshed.problems.push((source.path.clone(), why)),
        }
    }
    refreshed.read = store.apply_usage(&reads)?;
    Ok(refreshed)
}

/// Read one transcript from where it was read to; `None` when nothing
/// complete was appended. A file that is gone is no problem (an agent's
/// own clean-up); one shorter than what was read was rewritten, and is
/// not read again (what it held was counted).
fn read_source(source: &UsageSource) -> std::result::Result<Option<UsageRead>, String> {
    let Ok(provider) = Provider::parse(&source.provider) else {
        return Err(format!("provider {} is not one lf knows", source.provider));
    };
    // Records that are not an appended file (OpenCode's database): the
    // provider reads them from its own offset.
    let mut carry: Carry = serde_json::from_str(&source.carry).unwrap_or_default();
    let mut tally = Tally::default();
    if let Some(read) =
        provider.read_usage_records(&source.path, source.read_to, &mut carry, &mut tally)
    {
        return Ok(read?.map(|read_to| UsageRead {
            source: source.clone(),
            read_to,
            carry: serde_json::to_string(&carry).unwrap_or_else(|_| "{}".to_owned()),
            tally,
        }));
    }
    let mut file = match std::fs::File::open(&source.path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.to_string()),
    };
    let len = file.metadata().map_err(|error| error.to_string())?.len();
    if len == source.read_to {
        return Ok(None);
    }
    if len < source.read_to {
        return Err(format!(
            "it is {len} bytes, shorter than the {} already read: it was rewritten; \
             its usage so far is kept and nothing more is read from it",
            source.read_to
        ));
    }
    let mut appended = Vec::with_capacity((len - source.read_to) as usize);
    file.seek(SeekFrom::Start(source.read_to))
        .and_then(|_| file.take(len - source.read_to).read_to_end(&mut appended))
        .map_err(|error| error.to_string())?;
    // Only complete lines: the agent may be writing the last one.
    let Some(end) = appended.iter().rposition(|&byte| byte == b'\n') else {
        return Ok(None);
    };
    for line in appended[..end].split(|&byte| byte == b'\n') {
        if let Ok(line) = std::str::from_utf8(line) {
            provider.read_usage(line, &mut carry, &mut tally);
        }
    }
    Ok(Some(UsageRead {
        source: source.clone(),
        read_to: source.read_to + end as u64 + 1,
        carry: serde_json::to_string(&carry).unwrap_or_else(|_| "{}".to_owned()),
        tally,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Home;
    use crate::ids::{RunId, SessionId};
    use crate::store::{NewRun, NewSessionRow};
    use crate::wire::{SessionKind, TitleSource};

    /// Two readers at once (lf-serve and lf-session-usage) read the same
    /// appended bytes: the first to apply counts them, the other's read is
    /// dropped, so nothing counts twice.
    #[test]
    fn two_readers_at_once_count_once() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        let (one, two) = (Store::open(&home).unwrap(), Store::open(&home).unwrap());
        let (session, run) = (SessionId::new(), RunId::new());
        one.insert_session(
            &NewSessionRow {
                id: session.clone(),
                kind: SessionKind::Conversation,
                title: "t".into(),
                title_source: TitleSource::Human,
                interactive: true,
                cwd: "/".into(),
                provider: "claude".into(),
                model: None,
                task_id: None,
                wave_id: None,
                primary_scope: None,
                independent: true,
            },
            &NewRun {
                id: run.clone(),
                chosen_native_id: None,
                provider: "claude".into(),
                model: None,
                argv: Vec::new(),
                prompt: None,
            },
            1,
        )
        .unwrap();
        let transcript = dir.path().join("t.jsonl");
        std::fs::write(
            &transcript,
            r#"{"type":"assistant","timestamp":"2026-12-01T10:00:00Z","message":{"id":"m","model":"x","usage":{"input_tokens":7,"output_tokens":1}}}
"#,
        )
        .unwrap();
        one.record_transcript(run.as_str(), &transcript.display().to_string())
            .unwrap();
        let source = one.usage_sources(None).unwrap().remove(0);
        let first = read_source(&source).unwrap().unwrap();
        let second = read_source(&source).unwrap().unwrap();
        assert_eq!(one.apply_usage(&[first]).unwrap(), 1);
        assert_eq!(two.apply_usage(&[second]).unwrap(), 0, "overtaken");
        let (models, _) = one.usage_rows(None).unwrap();
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].sums.tokens.input, 7);
        assert_eq!(models[0].sums.requests, 1);
        // Nothing appended since: nothing to read.
        let source = two.usage_sources(None).unwrap().remove(0);
        assert!(read_source(&source).unwrap().is_none());
        // Rewritten shorter: said, and not read again from its start.
        std::fs::write(&transcript, "{}\n").unwrap();
        let why = read_source(&source).unwrap_err();
        assert!(why.contains("rewritten"), "{why}");
        // Gone: nothing to read, no problem.
        std::fs::remove_file(&transcript).unwrap();
        assert!(read_source(&source).unwrap().is_none());
    }

    /// A Home from before usage (version 10) keeps the transcripts its
    /// Runs named: the migration makes each a source, read from its start.
    #[test]
    fn the_migration_keeps_the_transcripts_runs_named() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().join("home"));
        let store = Store::open(&home).unwrap();
        let (session, run) = (SessionId::new(), RunId::new());
        store
            .insert_session(
                &NewSessionRow {
                    id: session.clone(),
                    kind: SessionKind::Conversation,
                    title: "t".into(),
                    title_source: TitleSource::Human,
                    interactive: true,
                    cwd: "/".into(),
                    provider: "codex".into(),
                    model: None,
                    task_id: None,
                    wave_id: None,
                    primary_scope: None,
                    independent: true,
                },
                &NewRun {
                    id: run.clone(),
                    chosen_native_id: None,
                    provider: "codex".into(),
                    model: None,
                    argv: Vec::new(),
                    prompt: None,
                },
                1,
            )
            .unwrap();
        store
            .conn()
            .execute_batch(&format!(
                "UPDATE runs SET transcript_path = '/r/rollout.jsonl' WHERE id = '{run}'; \
                 DROP TABLE usage_sources; DROP TABLE usage_models; DROP TABLE usage_time; \
                 DROP TABLE requests; DROP TABLE web_devices; PRAGMA user_version = 10;"
            ))
            .unwrap();
        drop(store);
        let migrated = Store::open(&home).unwrap();
        let sources = migrated.usage_sources(None).unwrap();
        assert_eq!(sources.len(), 1);
        let source = &sources[0];
        assert_eq!(
            (
                source.session_id.as_str(),
                source.path.as_str(),
                source.provider.as_str()
            ),
            (session.as_str(), "/r/rollout.jsonl", "codex")
        );
        assert_eq!(source.read_to, 0);
    }
}
