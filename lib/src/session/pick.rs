//! What the picker (`lf-session-pick`) shows and in which order: Sessions
//! that need the person first (review, then approve, then reply), then the
//! rest, newest first within each group; typing filters by words that must
//! all appear (case-insensitive) in the title, work path, id or directory.

use crate::wire::{Attention, SessionRecord};

fn rank(record: &SessionRecord) -> u8 {
    match record.attention {
        Some(Attention::Review) => 0,
        Some(Attention::Approve) => 1,
        Some(Attention::Reply) => 2,
        None => 3,
    }
}

/// Order records for picking. The sort is stable, so records that arrive
/// newest first stay newest first within a group.
pub fn order(records: &mut [SessionRecord]) {
    records.sort_by_key(rank);
}

/// Whether a record matches what was typed: every word appears somewhere.
pub fn matches(record: &SessionRecord, query: &str) -> bool {
    let haystack = format!(
        "{} {} {} {}",
        record.title,
        record.work_path.as_deref().unwrap_or_default(),
        record.id,
        record.cwd
    )
    .to_lowercase();
    query
        .to_lowercase()
        .split_whitespace()
        .all(|word| haystack.contains(word))
}

/// One line of the picker for a record, at most `width` characters.
pub fn line(record: &SessionRecord, width: usize) -> String {
    let attention = record.attention.map(Attention::as_str).unwrap_or("");
    let text = format!(
        "{}  {:7} {:11} {}{}",
        &record.id[..8.min(record.id.len())],
        attention,
        record.state.as_str(),
        record.title,
        record
            .work_path
            .as_deref()
            .map(|path| format!("  [{path}]"))
            .unwrap_or_default()
    );
    text.chars().take(width).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(title: &str, attention: Option<Attention>) -> SessionRecord {
        let json = serde_json::json!({
            "id": format!("{:0>32}", title.len()), "title": title, "title_source": "human",
            "kind": "conversation", "interactive": true, "state": "unknown", "attention": attention,
            "attention_since": attention.map(|_| "2026-11-29T00:00:00.000000Z"),
            "actions": [], "ready_summary": null, "provider": "claude", "detail": "claude",
            "cwd": "/work/app", "work": null, "wave_id": null, "work_path": "product / LOO-7",
            "task_ids": [], "primary_scope": null, "flow_membership": {"kind": "independent"},
            "workspace": null, "open_argv": [], "terminal_ids": [], "alive": false,
            "created_at": "2026-11-29T00:00:00.000000Z", "updated_at": "2026-11-29T00:00:00.000000Z",
            "completed_at": null
        });
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn attention_comes_first_and_order_is_otherwise_kept() {
        let mut records = vec![
            record("newest", None),
            record("reply", Some(Attention::Reply)),
            record("older", None),
            record("approve", Some(Attention::Approve)),
            record("review", Some(Attention::Review)),
        ];
        order(&mut records);
        let titles: Vec<&str> = records.iter().map(|record| record.title.as_str()).collect();
        assert_eq!(titles, ["review", "approve", "reply", "newest", "older"]);
    }

    #[test]
    fn every_typed_word_must_match_somewhere() {
        let parser = record("Fix the Parser", None);
        assert!(matches(&parser, ""));
        assert!(matches(&parser, "parser"));
        assert!(matches(&parser, "PARSER loo-7"));
        assert!(matches(&parser, "app fix"));
        assert!(!matches(&parser, "parser lexer"));
    }

    #[test]
    fn lines_are_bounded_by_the_width() {
        let parser = record("Fix the Parser", Some(Attention::Review));
        assert!(line(&parser, 200).contains("review"));
        assert!(line(&parser, 200).ends_with("[product / LOO-7]"));
        assert_eq!(line(&parser, 10).chars().count(), 10);
    }
}
