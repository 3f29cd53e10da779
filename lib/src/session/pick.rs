//! What the picker (`lf-session-pick`) shows and in which order. With
//! nothing typed: Sessions that need the person first (review, then
//! approve, then reply), then the rest, newest first within each group.
//! Typed words are matched fuzzily (nucleo, the matcher Helix uses), each
//! against the title, the work path or the directory, never the id, where
//! every hex digit would match; best matches first. A row shows attention
//! and how long it has waited. The preview is the selected Session's pane,
//! reduced to text and colours: a pane shows whatever its program printed,
//! so nothing in it may move the cursor or change the terminal.

use crate::clock::{Seconds, Timestamp};
use crate::error::domain::{Domain, ErrorKind};
use crate::error::hint::{Command, Hint};
use crate::ids::PaneId;
use crate::wire::{Attention, SessionRecord};
use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32String};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Order records for picking: those that wait for the person first, in
/// `state::WAITING_ORDER`. The sort is stable, so records that arrive
/// newest first stay newest first within a group.
pub fn order(records: &mut [SessionRecord]) {
    records.sort_by_key(|record| crate::state::waiting_rank(record.attention));
}

/// The Sessions to pick from, in picking order, with the text the matcher
/// reads from each (prepared once, so typing re-reads nothing).
pub struct Choices {
    records: Vec<SessionRecord>,
    /// Title, work path and directory.
    fields: Vec<[Utf32String; 3]>,
    matcher: Matcher,
}

impl Choices {
    pub fn new(mut records: Vec<SessionRecord>) -> Self {
        order(&mut records);
        let fields = records
            .iter()
            .map(|record| {
                [
                    record.title.as_str().into(),
                    record.work_path.as_deref().unwrap_or_default().into(),
                    record.cwd.as_str().into(),
                ]
            })
            .collect();
        Choices {
            records,
            fields,
            matcher: Matcher::new(Config::DEFAULT),
        }
    }

    pub fn records(&self) -> &[SessionRecord] {
        &self.records
    }

    /// The records that match what was typed, as indices into
    /// [`records`](Self::records), best first (ties in picking order); all
    /// of them in picking order when nothing is typed. Every word must
    /// match one field on its own (case-insensitive), so letters are never
    /// gathered from a title and a path at once.
    pub fn matching(&mut self, query: &str) -> Vec<usize> {
        let pattern = Pattern::new(
            query,
            CaseMatching::Ignore,
            Normalization::Smart,
            AtomKind::Fuzzy,
        );
        if pattern.atoms.is_empty() {
            return (0..self.records.len()).collect();
        }
        let matcher = &mut self.matcher;
        let mut scored: Vec<(u32, usize)> = self
            .fields
            .iter()
            .enumerate()
            .filter_map(|(index, fields)| {
                let mut total = 0;
                for atom in &pattern.atoms {
                    let best = fields
                        .iter()
                        .filter_map(|field| atom.score(field.slice(..), matcher))
                        .max()?;
                    total += u32::from(best);
                }
                Some((total, index))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().map(|(_, index)| index).collect()
    }
}

/// How long a Session has waited for the person, as of `now`: since its
/// current attention began.
pub fn waited(record: &SessionRecord, now: Timestamp) -> Option<Seconds> {
    let since = record
        .attention_since
        .filter(|_| record.attention.is_some())?;
    Some(Seconds::between(since.micros(), now.micros()))
}

/// A wait in one unit, at most four columns for a wait under 28 years:
/// `45s`, `14m`, `3h`, `12d`.
pub fn short(Seconds(seconds): Seconds) -> String {
    match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m", seconds / 60),
        3600..86_400 => format!("{}h", seconds / 3600),
        _ => format!("{}d", seconds / 86_400),
    }
}

/// One row of the picker for a record, exactly `width` columns: attention,
/// how long it has waited, state, title, work path and the short id (what
/// `lf-session-open` takes; last, so a narrow popup keeps the title).
pub fn line(record: &SessionRecord, now: Timestamp, width: usize) -> String {
    let attention = record.attention.map(Attention::as_str).unwrap_or("");
    let waited = waited(record, now).map(short).unwrap_or_default();
    let text = format!(
        "{attention:7} {waited:>4}  {:11} {}{}  {}",
        record.state.as_str(),
        record.title,
        record
            .work_path
            .as_deref()
            .map(|path| format!("  [{path}]"))
            .unwrap_or_default(),
        crate::ids::short_id(&record.id)
    );
    fit(&text, width)
}

/// Text cut or padded with spaces to exactly `width` terminal columns;
/// characters of no width of their own (controls) are left out.
pub fn fit(text: &str, width: usize) -> String {
    let mut fitted = String::new();
    let mut used = 0;
    for c in text.chars() {
        let Some(columns) = c.width().filter(|_| !crate::input::is_unsafe(c)) else {
            continue;
        };
        if used + columns > width {
            break;
        }
        fitted.push(c);
        used += columns;
    }
    fitted.extend(std::iter::repeat_n(' ', width - used));
    fitted
}

/// Columns a text takes on a terminal.
pub fn columns(text: &str) -> usize {
    text.width()
}

/// The tmux pane where the Session's live client runs, if it runs in one
/// (a client may be in a plain terminal, named by its tty).
pub fn pane(record: &SessionRecord) -> Option<PaneId> {
    record.terminal_ids.iter().find_map(|id| PaneId::parse(id))
}

impl crate::Lf {
    /// The last `count` lines of what a Session's live pane shows now, as
    /// plain text (`screen::last_lines`); none when its agent runs in no
    /// tmux pane (or the pane went away meanwhile). Its text is the
    /// agent's: untrusted.
    pub fn screen(&self, record: &SessionRecord, count: usize) -> Option<Vec<String>> {
        let captured = self.caller.tmux().capture_pane(&pane(record)?).ok()?;
        Some(crate::screen::last_lines(&captured, count))
    }
}

/// A rectangle of the terminal, in cells from the top left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Area {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub height: u16,
}

/// Where the picker draws on a terminal of a given size: the prompt on the
/// first row, the list below it, and the preview beside the list on a wide
/// terminal, below it on a tall one, or nowhere when there is no room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub width: u16,
    pub list: Area,
    pub preview: Option<Area>,
}

/// Columns from which the preview goes beside the list.
const BESIDE_FROM: u16 = 100;
/// Rows from which it goes below the list.
const BELOW_FROM: u16 = 20;

pub fn layout(width: u16, height: u16) -> Layout {
    let rows = height.saturating_sub(1);
    let list = |width, height| Area {
        x: 0,
        y: 1,
        width,
        height,
    };
    if width >= BESIDE_FROM && rows > 0 {
        // The list, a rule and a space, the preview.
        let left = width / 2;
        return Layout {
            width,
            list: list(left, rows),
            preview: Some(Area {
                x: left + 2,
                y: 1,
                width: width - left - 2,
                height: rows,
            }),
        };
    }
    if height >= BELOW_FROM {
        // The list, a rule, the preview.
        let above = rows / 2;
        return Layout {
            width,
            list: list(width, above),
            preview: Some(Area {
                x: 0,
                y: 2 + above,
                width,
                height: rows - above - 1,
            }),
        };
    }
    Layout {
        width,
        list: list(width, rows),
        preview: None,
    }
}

/// The lines of captured pane text to show in `width` × `height` cells:
/// the last `height` lines up to the last that shows anything, each cut to
/// `width` columns and ending with its colours reset. Only SGR sequences
/// (colours and attributes) are kept; every other escape sequence and
/// control character is taken out, and a tab becomes spaces.
pub fn preview(captured: &str, width: usize, height: usize) -> Vec<String> {
    let mut lines: Vec<(String, bool)> = captured
        .lines()
        .map(|line| crate::screen::colored(line, width))
        .collect();
    while lines.last().is_some_and(|(_, blank)| *blank) {
        lines.pop();
    }
    let skip = lines.len().saturating_sub(height);
    lines.into_iter().skip(skip).map(|(line, _)| line).collect()
}

/// The picker's terminal.
#[derive(Debug, thiserror::Error, strum::IntoStaticStr, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[non_exhaustive]
pub enum PickError {
    #[error("there is no session to pick")]
    NothingToPick,
    #[error("the picker needs a terminal")]
    NoTerminal,
    #[error("cannot {0} the terminal")]
    Terminal(&'static str, #[source] std::io::Error),
}

impl Domain for PickError {
    fn kind(&self) -> ErrorKind {
        use PickError::*;
        match self {
            NothingToPick => ErrorKind::NotFound,
            NoTerminal => ErrorKind::Usage,
            Terminal(..) => ErrorKind::Operational,
        }
    }

    fn name(&self) -> &str {
        self.into()
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            PickError::NoTerminal => Some(
                Hint::text("use ")
                    .command(Command::SessionList { all: false })
                    .then(" to choose in a script"),
            ),
            _ => None,
        }
    }
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
            "workspace": null, "open_argv": [], "terminal_ids": [], "alive": false, "lost": null,
            "created_at": "2026-11-29T00:00:00.000000Z", "updated_at": "2026-11-29T06:00:00.000000Z",
            "completed_at": null
        });
        serde_json::from_value(json).unwrap()
    }

    fn titles(choices: &mut Choices, query: &str) -> Vec<String> {
        let indices = choices.matching(query);
        indices
            .into_iter()
            .map(|index| choices.records()[index].title.clone())
            .collect()
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
        assert_eq!(titles, ["approve", "reply", "review", "newest", "older"]);
    }

    #[test]
    fn words_match_fuzzily_best_first_and_never_the_id() {
        let mut choices = Choices::new(vec![
            record("Review the API", Some(Attention::Review)),
            record("Write the docs", None),
            record("Fix the Parser", None),
        ]);
        assert_eq!(
            titles(&mut choices, ""),
            ["Review the API", "Write the docs", "Fix the Parser"]
        );
        // Letters spread over a title, in any case.
        assert_eq!(titles(&mut choices, "wtdcs"), ["Write the docs"]);
        assert_eq!(titles(&mut choices, "PRSR"), ["Fix the Parser"]);
        // A word per field: the title, the work path, the directory.
        assert_eq!(titles(&mut choices, "parser loo7"), ["Fix the Parser"]);
        assert_eq!(titles(&mut choices, "docs wrk/app"), ["Write the docs"]);
        assert!(titles(&mut choices, "parser lexer").is_empty());
        // Every id here is zeros and a digit: ids are not matched.
        assert!(titles(&mut choices, "000").is_empty());
        // The closer match first, whatever the order without a query.
        assert_eq!(
            titles(&mut choices, "the"),
            ["Review the API", "Write the docs", "Fix the Parser"]
        );
        assert_eq!(titles(&mut choices, "api")[0], "Review the API");
        assert_eq!(titles(&mut choices, "wr")[0], "Write the docs");
    }

    #[test]
    fn the_wait_is_counted_from_when_attention_began() {
        let review = record("Review the API", Some(Attention::Review));
        // Since attention began, not since the last update.
        let since = review.attention_since.unwrap().micros();
        assert_ne!(since, review.updated_at.micros());
        let at = |seconds: i64| Timestamp(since + seconds * 1_000_000);
        assert_eq!(waited(&review, at(90)), Some(Seconds(90)));
        assert_eq!(waited(&record("idle", None), at(90)), None);
        let shown: Vec<String> = [0, 59, 60, 3599, 3600, 86_399, 86_400, 40 * 86_400]
            .map(|seconds| short(Seconds(seconds)))
            .to_vec();
        assert_eq!(shown, ["0s", "59s", "1m", "59m", "1h", "23h", "1d", "40d"]);
    }

    #[test]
    fn lines_show_attention_and_the_wait_in_exactly_the_width() {
        let review = record("Fix the Parser", Some(Attention::Review));
        let now = Timestamp(review.attention_since.unwrap().micros() + 14 * 60 * 1_000_000);
        let row = line(&review, now, 200);
        assert!(row.starts_with("review   14m  unknown"), "{row:?}");
        assert!(
            row.trim_end().ends_with(&format!(
                "Fix the Parser  [product / LOO-7]  {}",
                &review.id[..8]
            )),
            "{row:?}"
        );
        assert_eq!(columns(&row), 200);
        assert_eq!(columns(&line(&review, now, 10)), 10);
        assert_eq!(line(&review, now, 0), "");
        let idle = line(&record("idle", None), now, 30);
        assert!(
            idle.starts_with("              unknown     idle"),
            "{idle:?}"
        );
        // Wide characters count twice and are never cut in half.
        assert_eq!(fit("日本語", 5), "日本 ");
        assert_eq!(fit("a\u{7}b", 3), "ab ");
    }

    #[test]
    fn layouts_fit_every_size_and_preview_only_where_there_is_room() {
        for width in 0..130 {
            for height in 0..40 {
                let layout = layout(width, height);
                let mut areas = vec![layout.list];
                areas.extend(layout.preview);
                for area in areas {
                    assert!(area.x + area.width <= width, "{width}x{height}: {area:?}");
                    if area.height > 0 {
                        assert!(area.y + area.height <= height, "{width}x{height}: {area:?}");
                    }
                }
            }
        }
        let wide = layout(120, 30);
        assert_eq!(wide.list.height, 29);
        assert_eq!(wide.preview.unwrap().x, 62);
        let tall = layout(80, 30);
        assert_eq!(tall.preview.unwrap().y, tall.list.y + tall.list.height + 1);
        assert_eq!(layout(60, 10).preview, None);
        assert_eq!(layout(10, 1).list.height, 0);
    }

    #[test]
    fn a_preview_keeps_colours_and_nothing_else_of_the_pane() {
        let captured = "\x1b[1;31mred\x1b[0m plain\n\
                        \x1b[2J\x1b[Hcleared\x1b[10;1Hmoved\x1b[?1049l\x1b]0;title\x07\x1bcreset\n\
                        \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \u{9b}2J\x08\r\x1b[>4;1m\x1b[38:5:1mx\n\
                        a\tb\n\
                        \n   \n";
        let lines = preview(captured, 40, 10);
        assert_eq!(
            lines,
            [
                "\x1b[1;31mred\x1b[0m plain\x1b[0m",
                "clearedmovedreset\x1b[0m",
                "link 2J\x1b[38:5:1mx\x1b[0m",
                "a       b\x1b[0m",
            ]
        );
        // The last lines that show anything, each cut to the width.
        assert_eq!(
            preview("one\ntwo\nthree\n\n", 3, 2),
            ["two\x1b[0m", "thr\x1b[0m"]
        );
        assert_eq!(preview("\tx\ny", 3, 2), ["   \x1b[0m", "y\x1b[0m"]);
        assert!(preview("anything", 0, 0).is_empty());
    }

    #[test]
    fn only_pane_ids_are_previewed() {
        let mut running = record("running", None);
        running.terminal_ids = vec!["/dev/pts/3".into(), "%x".into(), "%12".into()];
        assert_eq!(pane(&running).unwrap().as_str(), "%12");
        running.terminal_ids = vec!["%".into(), "-t%1".into(), "%1;kill".into()];
        assert_eq!(pane(&running), None);
    }
}
