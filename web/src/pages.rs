//! The pages: the Sessions that need the person, then the rest; one
//! Session; and the parts of both that a page fetches again when the
//! change stream tells it something changed. Every string a Session holds
//! (a title, a summary, its screen, a file name) is the agent's or a
//! repository's, so it is untrusted: each goes through `Outside` (the
//! library's display filter: nothing in it reorders or hides text), maud
//! escapes every interpolation, and nothing here writes raw HTML.

use crate::App;
use crate::guard::{self, CSRF_FIELD};
use axum::Router;
use axum::extract::{Form, Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{from_fn_with_state, map_response};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use lf::clock::Timestamp;
use lf::provider::{Answer, Provider};
use lf::wire::{ActionKind, SessionDiff, SessionRecord};
use maud::{DOCTYPE, Markup, html};
use std::sync::Arc;

/// Lines of a Session's screen its page shows.
const SCREEN_LINES: usize = 40;
/// How long a completed agent gets between SIGTERM and SIGKILL, as
/// lf-session-complete's default.
const GRACE: std::time::Duration = std::time::Duration::from_secs(5);

pub(crate) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/part/", get(index_part))
        .route("/s/{id}", get(session))
        .route("/part/s/{id}", get(session_part))
        .route("/s/{id}/complete", post(complete))
        .route("/s/{id}/reply", post(reply))
        .route("/s/{id}/answer", post(answer))
        .route("/events", get(crate::live::events))
        .merge(crate::assets::routes())
        .fallback(not_found)
        .layer(from_fn_with_state(Arc::clone(&app), guard::check))
        // Last, so outermost: it sees every response, the guard's too.
        .layer(map_response(secure))
        .with_state(app)
}

/// The headers every response carries, whichever route (or refusal)
/// made it: nothing but this server's own files may run or load, no page
/// may frame it, nothing is sniffed or cached, and no other site is sent
/// a referrer.
/// docs/threat-model.md lists them ("lf-web's response headers") and the
/// test that requests every route reads that list.
pub(crate) const SECURITY_HEADERS: [(header::HeaderName, &str); 5] = [
    (
        header::CONTENT_SECURITY_POLICY,
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
         connect-src 'self'; manifest-src 'self'; form-action 'self'; \
         frame-ancestors 'none'; base-uri 'none'",
    ),
    (header::X_FRAME_OPTIONS, "DENY"),
    (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
    // Not `no-referrer`: under it Chromium sends `Origin: null` with the
    // page's own form POSTs, which the guard refuses as another site's.
    // Another site gets no referrer; the page's own URLs carry no token.
    (header::REFERRER_POLICY, "same-origin"),
    (header::CACHE_CONTROL, "no-store"),
];

/// The one layer that sets [`SECURITY_HEADERS`], outermost, so the
/// guard's refusals, the token's redirect, every page, part, event
/// stream, asset and the 404 go out with them. A header a handler set
/// (SSE's `Cache-Control: no-cache`) is replaced.
async fn secure(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// Text from outside (a title, a path, a screen's line, a file name, a
/// message that quotes one) as a page shows it: through the library's one
/// display filter (`untrusted::visible`: controls, bidirectional and
/// invisible characters become visible escapes such as `\u{202e}`), then
/// escaped by maud. Every such string in a page goes through it.
struct Outside<'a>(&'a str);

impl maud::Render for Outside<'_> {
    fn render_to(&self, buffer: &mut String) {
        lf::error::untrusted::visible(self.0)
            .as_ref()
            .render_to(buffer);
    }
}

/// A failure as a page: its status and the library's message.
struct Failed(lf::Error);

impl From<lf::Error> for Failed {
    fn from(error: lf::Error) -> Self {
        Failed(error)
    }
}

impl IntoResponse for Failed {
    fn into_response(self) -> Response {
        let status = match self.0.kind() {
            lf::ErrorKind::NotFound => StatusCode::NOT_FOUND,
            lf::ErrorKind::Usage => StatusCode::BAD_REQUEST,
            lf::ErrorKind::Conflict => StatusCode::CONFLICT,
            lf::ErrorKind::Operational => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (
            status,
            message_page(status, &self.0.one_line_without_hint()),
        )
            .into_response()
    }
}

/// A page that says one thing (a refusal, a failure).
pub(crate) fn message_page(status: StatusCode, message: &str) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (status.as_u16()) " · lf" }
                link rel="stylesheet" href="/static/page.css";
            }
            body {
                main {
                    h1 { (status.canonical_reason().unwrap_or("Refused")) }
                    p.message { (Outside(message)) }
                    p { a href="/" { "All sessions" } }
                }
            }
        }
    }
}

async fn not_found() -> Response {
    let status = StatusCode::NOT_FOUND;
    (status, message_page(status, "There is no such page.")).into_response()
}

/// A page around its live part: `part` is where it fetches that part
/// again when the change stream says something changed, and every
/// `every` seconds (what no event tells: the time waited, a screen).
fn page(title: &str, part: &str, every: u32, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" data-seq="0" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="theme-color" content="#17202c";
                title { (Outside(title)) }
                link rel="manifest" href="/manifest.webmanifest";
                link rel="icon" href="/static/icon.svg" type="image/svg+xml";
                link rel="stylesheet" href="/static/page.css";
                script src="/static/page.js" defer {}
            }
            body data-part=(part) data-every=(every) {
                header.bar {
                    a.home href="/" { "lf" }
                    span #live title="Follows your sessions as they change" { "live" }
                }
                main #part { (body) }
            }
        }
    }
}

/// The open Sessions in the order a person takes them: those that wait
/// first (the library's order, longest waiting first), then the rest,
/// newest first.
fn in_turn(lf: lf::Lf) -> lf::Result<Vec<SessionRecord>> {
    let mut records = lf
        .list(&lf::ListFilter::default())?
        .collect::<lf::Result<Vec<_>>>()?;
    records.sort_by_key(lf::attention::turn);
    Ok(records)
}

async fn index(State(app): State<Arc<App>>) -> Result<Markup, Failed> {
    let records = app.with_lf(in_turn).await?;
    Ok(page("lf", "/part/", 30, sessions(&records)))
}

async fn index_part(State(app): State<Arc<App>>) -> Result<Markup, Failed> {
    let records = app.with_lf(in_turn).await?;
    Ok(sessions(&records))
}

fn sessions(records: &[SessionRecord]) -> Markup {
    let now = Timestamp::now();
    let waiting = records
        .iter()
        .take_while(|record| record.attention.is_some());
    let rest = records
        .iter()
        .skip_while(|record| record.attention.is_some());
    let count = records
        .iter()
        .filter(|record| record.attention.is_some())
        .count();
    html! {
        section.waiting {
            h1 {
                @if count == 0 { "Nothing waits for you" }
                @else if count == 1 { "1 session waits for you" }
                @else { (count) " sessions wait for you" }
            }
            ul.sessions { @for record in waiting { (row(record, now)) } }
        }
        @if records.len() > count {
            section.rest {
                h2 { "The rest" }
                ul.sessions { @for record in rest { (row(record, now)) } }
            }
        }
        @if records.is_empty() {
            p.none { "No open sessions in this Home." }
        }
    }
}

fn row(record: &SessionRecord, now: Timestamp) -> Markup {
    let attention = record.attention.map(|attention| attention.as_str());
    html! {
        li.session data-id=(record.id) data-attention=[attention] {
            a href={ "/s/" (record.id) } {
                span.line {
                    @if let Some(attention) = attention {
                        span class={ "badge " (attention) } { (attention) }
                    }
                    @if let Some(waited) = lf::session::pick::waited(record, now) {
                        span.waited { "waited " (lf::session::pick::short(waited)) }
                    }
                    span class={ "state " (record.state.as_str()) } { (record.state.as_str()) }
                }
                span.title { (Outside(&record.title)) }
                span.where {
                    (Outside(record.work_path.as_deref().unwrap_or(&record.cwd)))
                    " · " (lf::ids::short_id(&record.id))
                }
            }
        }
    }
}

/// A Session's id from the path: exactly an id, checked before it reaches
/// the library (a prefix or anything else is no page).
fn session_id(text: &str) -> Result<lf::ids::SessionId, Failed> {
    lf::ids::SessionId::parse(text)
        .map_err(|_| Failed(lf::error::SessionError::SessionNotFound(text.to_owned()).into()))
}

/// What a Session's page shows.
struct Shown {
    record: SessionRecord,
    screen: Option<Vec<String>>,
    /// The request it waits on: the one its screen shows, and that dialog.
    request: Option<lf::wire::AttentionRequest>,
    dialog: Option<lf::request::Dialog>,
    /// Its changes, or why there are none to show: whether that is its
    /// folder being no repository, and the library's words.
    diff: Result<SessionDiff, (bool, String)>,
}

async fn shown(app: &Arc<App>, id: lf::ids::SessionId) -> Result<Shown, Failed> {
    Ok(app
        .with_lf(move |lf| {
            let record = lf.get(id.as_str())?;
            let screen = lf.screen(&record, SCREEN_LINES);
            // The request its screen shows (an agent that asked for several
            // at once shows them in its own order), else the first asked.
            let on_screen = match &record.attention_request {
                Some(_) => lf.request_on_screen(&record)?,
                None => None,
            };
            let (request, dialog) = match on_screen {
                Some((request, dialog)) => (Some(request), Some(dialog)),
                None => (record.attention_request.clone(), None),
            };
            let diff = lf.diff(&record.id).map_err(|error| {
                (
                    error.name() == "not_in_repository",
                    error.one_line_without_hint(),
                )
            });
            Ok(Shown {
                record,
                screen,
                request,
                dialog,
                diff,
            })
        })
        .await?)
}

async fn session(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Markup, Failed> {
    let id = session_id(&id)?;
    let part = format!("/part/s/{id}");
    let shown = shown(&app, id).await?;
    let title = format!("{} · lf", shown.record.title);
    Ok(page(
        &title,
        &part,
        5,
        session_body(&shown, app.guard.csrf()),
    ))
}

async fn session_part(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
) -> Result<Markup, Failed> {
    let id = session_id(&id)?;
    let shown = shown(&app, id).await?;
    Ok(session_body(&shown, app.guard.csrf()))
}

fn session_body(shown: &Shown, csrf: &str) -> Markup {
    let record = &shown.record;
    let now = Timestamp::now();
    html! {
        article.session data-id=(record.id) data-state=(record.state.as_str()) {
            h1 { (Outside(&record.title)) }
            p.line {
                @if let Some(attention) = record.attention {
                    span class={ "badge " (attention.as_str()) } { (attention.as_str()) }
                }
                @if let Some(waited) = lf::session::pick::waited(record, now) {
                    span.waited { "waited " (lf::session::pick::short(waited)) }
                }
                span class={ "state " (record.state.as_str()) } { (record.state.as_str()) }
            }
            // What the person may do comes first: on a phone, the request
            // and its buttons are on the first screen.
            (actions(shown, csrf))
            dl {
                dt { "Agent" } dd { (Outside(&record.detail)) }
                @if let Some(work) = &record.work_path { dt { "Work" } dd { (Outside(work)) } }
                dt { "Folder" } dd.path { (Outside(&record.cwd)) }
                dt { "Id" } dd.id { (record.id) }
            }
            @if let Some(summary) = &record.ready_summary {
                section {
                    h2 { "Ready summary" }
                    p.summary { (Outside(summary)) }
                }
            }
            section {
                h2 { "Screen" }
                @match &shown.screen {
                    Some(lines) => pre.screen { @for line in lines { (Outside(line)) "\n" } },
                    None => p.none { "Its agent runs in no tmux pane now." },
                }
            }
            section {
                h2 { "Changes" }
                @match &shown.diff {
                    Ok(diff) => (diff_summary(diff)),
                    Err((true, _)) => p.none { "Its folder is not a git repository: there are no changes to show." },
                    Err((false, why)) => p.none { (Outside(why)) },
                }
            }
        }
    }
}

/// What the person may do with a Session from here: reply when it waits
/// for a reply, answer the request it waits on, complete it.
fn actions(shown: &Shown, csrf: &str) -> Markup {
    let record = &shown.record;
    let complete = record
        .actions
        .iter()
        .find(|action| action.kind == ActionKind::Complete);
    html! {
        section.actions {
            @match record.attention {
                Some(lf::wire::Attention::Reply) => form.reply method="post" action={ "/s/" (record.id) "/reply" } {
                    input type="hidden" name=(CSRF_FIELD) value=(csrf);
                    label for="reply-text" { "Your reply" }
                    span.field {
                        input #reply-text type="text" name="text" required autocomplete="off"
                            maxlength=(lf::input::REPLY_MAX) enterkeyhint="send";
                        button type="submit" name="reply" { "Reply" }
                    }
                },
                Some(lf::wire::Attention::Approve) => (request(shown, csrf)),
                _ => {},
            }
            @if let Some(action) = complete {
                @match &action.unavailable_reason {
                    None => details.complete {
                        summary { (action.label) "…" }
                        form method="post" action={ "/s/" (record.id) "/complete" } {
                            input type="hidden" name=(CSRF_FIELD) value=(csrf);
                            p { (action.help) }
                            button type="submit" name="complete" { "Complete this session" }
                        }
                    },
                    Some(reason) => p.none { (action.label) ": " (Outside(reason)) },
                }
            }
        }
    }
}

/// The request a Session waits on, first and whole: its tool, its command
/// (wrapped, never cut), its folder and how long it has waited — then
/// Allow and Deny, whose form names exactly this request and the dialog
/// shown (a stale page's answer is refused). "Allow always" asks again,
/// naming the rule it would create.
fn request(shown: &Shown, csrf: &str) -> Markup {
    let record = &shown.record;
    let Some(request) = &shown.request else {
        return html! {
            p.request { "Its agent waits on a dialog lf does not answer from here (see its screen below): open it in its terminal." }
        };
    };
    let provider = record.provider.as_deref().map(Provider::parse);
    let dialog = shown.dialog.as_ref().filter(|dialog| {
        request
            .input
            .as_deref()
            .is_none_or(|input| dialog.shows(input))
    });
    let always = match (provider, dialog) {
        (Some(Ok(provider)), Some(dialog)) => provider.always_rule(dialog),
        _ => None,
    };
    let waited = lf::session::pick::short(lf::clock::Seconds::between(
        request.since.micros(),
        Timestamp::now().micros(),
    ));
    html! {
        section.request data-request=(request.id) {
            h2 { "Its agent asks" }
            dl {
                dt { "Tool" } dd.tool { (Outside(request.tool.as_deref().unwrap_or("(its dialog says)"))) }
                dt { "Folder" } dd.path { (Outside(&request.cwd)) }
                dt { "Waited" } dd.waited { (waited) }
            }
            @match (&request.input, dialog) {
                (Some(input), _) => pre.input { (Outside(input)) },
                (None, Some(dialog)) => pre.input { @for line in &dialog.lines { (Outside(line)) "\n" } },
                (None, None) => p.none { "Its dialog is not on its screen now." },
            }
            @if dialog.is_none() {
                p.none { "Its screen shows another dialog or none now: reload before you answer." }
            }
            form.answer method="post" action={ "/s/" (record.id) "/answer" } {
                input type="hidden" name=(CSRF_FIELD) value=(csrf);
                input type="hidden" name="request" value=(request.id);
                @if let Some(dialog) = dialog {
                    input type="hidden" name="dialog" value=(dialog.digest());
                }
                span.buttons {
                    button type="submit" name="answer" value="allow" { "Allow" }
                    button.deny type="submit" name="answer" value="deny" { "Deny" }
                }
            }
            @if let Some(rule) = always {
                details.always {
                    summary { "Allow always…" }
                    form method="post" action={ "/s/" (record.id) "/answer" } {
                        input type="hidden" name=(CSRF_FIELD) value=(csrf);
                        input type="hidden" name="request" value=(request.id);
                        @if let Some(dialog) = dialog {
                            input type="hidden" name="dialog" value=(dialog.digest());
                        }
                        p { "This allows it and creates the rule: " q.rule { (Outside(&rule)) } }
                        button.secondary type="submit" name="answer" value="allow_always" { "Allow always" }
                    }
                }
            }
        }
    }
}

fn diff_summary(diff: &SessionDiff) -> Markup {
    html! {
        p.line {
            @if let Some(branch) = &diff.branch { span.branch { (Outside(branch)) } " " }
            "against " (Outside(&diff.base))
            @if diff.ahead > 0 { " · " (diff.ahead) " ahead" }
            @if diff.behind > 0 { " · " (diff.behind) " behind" }
            @if diff.uncommitted { " · uncommitted changes" }
        }
        @if diff.files.is_empty() && diff.untracked.is_empty() {
            p.none { "No changes." }
        } @else {
            p { span.add { "+" (diff.insertions) } " " span.del { "−" (diff.deletions) } " in " (diff.files.len()) " files" }
            ul.files {
                @for file in &diff.files {
                    li {
                        span.add { @if let Some(n) = file.insertions { "+" (n) } @else { "bin" } }
                        span.del { @if let Some(n) = file.deletions { "−" (n) } }
                        span.path { (Outside(&file.path)) }
                    }
                }
                @for path in &diff.untracked {
                    li { span.add { "new" } span.del {} span.path { (Outside(path)) } }
                }
            }
        }
    }
}

/// `POST /s/ID/complete`: what lf-session-complete does, then the
/// Session's page again.
async fn complete(State(app): State<Arc<App>>, Path(id): Path<String>) -> Result<Response, Failed> {
    let id = session_id(&id)?;
    let page = format!("/s/{id}");
    app.with_lf(move |lf| {
        lf.complete(id.as_str(), GRACE, &mut |stopping| {
            eprintln!("lf-web: {stopping}");
        })
    })
    .await?;
    Ok(Redirect::to(&page).into_response())
}

/// The reply form's field.
#[derive(serde::Deserialize)]
struct ReplyForm {
    text: String,
}

/// `POST /s/ID/reply`: what lf-session-send does, then the Session's page.
async fn reply(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Form(form): Form<ReplyForm>,
) -> Result<Response, Failed> {
    let id = session_id(&id)?;
    let page = format!("/s/{id}");
    app.with_lf(move |lf| lf.send_reply(id.as_str(), &form.text))
        .await?;
    Ok(Redirect::to(&page).into_response())
}

/// The answer form: its button, the request it answers and the digest
/// of the dialog the page showed.
#[derive(serde::Deserialize)]
struct AnswerForm {
    answer: String,
    /// The page always names it; another client may leave it out, and
    /// then answers the one request up, as lf-session-answer does.
    #[serde(default)]
    request: Option<String>,
    #[serde(default)]
    dialog: Option<String>,
}

/// `POST /s/ID/answer`: what lf-session-answer does, then the Session's
/// page.
async fn answer(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    Form(form): Form<AnswerForm>,
) -> Result<Response, Failed> {
    let id = session_id(&id)?;
    // The buttons send a word of lf-session-answer's, `allow_always` for
    // `allow --always`.
    let (word, always) = match form.answer.strip_suffix("_always") {
        Some(word) => (word, true),
        None => (form.answer.as_str(), false),
    };
    let answer = match Answer::parse(word, always) {
        Ok(answer) => answer,
        Err(refused) => {
            let status = StatusCode::BAD_REQUEST;
            let page = message_page(status, &refused.to_string());
            return Ok((status, page).into_response());
        }
    };
    let page = format!("/s/{id}");
    app.with_lf(move |lf| {
        let seen = lf::session::act::Seen {
            request: form.request.as_deref(),
            dialog: form.dialog.as_deref(),
        };
        lf.answer_prompt(id.as_str(), answer, seen)
    })
    .await?;
    Ok(Redirect::to(&page).into_response())
}
