//! The change stream, followed once for every open page: one thread
//! follows the Home's events as `lf-session-watch` does (woken by the
//! Home's bell within milliseconds of a commit) and hands each to every
//! page's event stream (Server-Sent Events). A page told of a change
//! fetches the part of itself that shows it, rendered and escaped here,
//! so the page's script never builds HTML from a Session's text.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::Stream;
use lf::changes::{Next, WatchOptions};
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast};

/// What a page is told of one event: enough to know what to fetch again.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Change {
    pub seq: u64,
    /// When it was committed, in microseconds since the epoch (the event's
    /// `at`), so a page can tell how long it took to reach it.
    pub at: i64,
    pub session_id: String,
    pub kind: lf::wire::EventKind,
}

/// The events of the Home, for every page that listens.
pub(crate) struct Changes {
    sender: broadcast::Sender<Change>,
    /// One permit per open event stream.
    streams: Arc<Semaphore>,
}

/// Event streams open at once: each holds a connection for as long as
/// its page is open (10 pages measured 23 MB), so they may never take
/// every connection lf-web serves.
pub(crate) const STREAMS_MAX: usize = 64;

/// Events a slow page may fall behind by before it is told to fetch all.
const BACKLOG: usize = 256;

impl Changes {
    /// Start following the Home's change stream.
    pub(crate) fn follow(home: lf::Home, caller: lf::Caller) -> lf::Result<Self> {
        let (sender, _) = broadcast::channel(BACKLOG);
        let tell = sender.clone();
        std::thread::Builder::new()
            .name("lf-web changes".to_owned())
            .spawn(move || {
                loop {
                    if let Err(error) = follow(&home, &caller, &tell) {
                        eprintln!("lf-web: following the change stream: {}", error.report());
                    }
                    std::thread::sleep(Duration::from_secs(1));
                }
            })
            .map_err(|source| lf::Error::io("cannot follow the change stream", source))?;
        Ok(Changes {
            sender,
            streams: Arc::new(Semaphore::new(STREAMS_MAX)),
        })
    }
}

fn follow(
    home: &lf::Home,
    caller: &lf::Caller,
    tell: &broadcast::Sender<Change>,
) -> lf::Result<()> {
    let lf = lf::Lf::at(home.clone(), caller.clone());
    let mut watch = lf.watch(WatchOptions {
        since: None,
        attention: false,
        follow: true,
    })?;
    loop {
        match watch.next_within(Duration::from_secs(60))? {
            Next::Event(event) => {
                // No page listening is no error.
                let _ = tell.send(Change {
                    seq: event.seq,
                    at: event.at.micros(),
                    session_id: event.session_id,
                    kind: event.kind,
                });
            }
            Next::Idle => {}
            Next::End => return Ok(()),
        }
    }
}

/// `GET /events`: the Home's changes as Server-Sent Events, one `change`
/// per event (its JSON), and `behind` when this page fell so far behind
/// that it should fetch everything again. Past [`STREAMS_MAX`] open
/// streams, 503: that page shows itself not live and still fetches its
/// part on its timer.
pub(crate) async fn events(State(app): State<Arc<crate::App>>) -> Response {
    let Ok(permit) = Arc::clone(&app.changes.streams).try_acquire_owned() else {
        return crate::guard::refused(
            StatusCode::SERVICE_UNAVAILABLE,
            "Too many pages of this lf-web are open: close some and reload this one.",
        );
    };
    stream(app.changes.sender.subscribe(), permit).into_response()
}

/// The events for one page, holding its permit while it is open.
fn stream(
    receiver: broadcast::Receiver<Change>,
    permit: OwnedSemaphorePermit,
) -> Sse<impl Stream<Item = Result<Event, std::convert::Infallible>>> {
    let stream =
        futures_util::stream::unfold((receiver, permit), |(mut receiver, permit)| async move {
            let event = match receiver.recv().await {
                Ok(change) => match serde_json::to_string(&change) {
                    Ok(json) => Event::default()
                        .event("change")
                        .id(change.seq.to_string())
                        .data(json),
                    Err(_) => Event::default().event("behind").data(""),
                },
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    Event::default().event("behind").data("")
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            };
            Some((Ok(event), (receiver, permit)))
        });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
