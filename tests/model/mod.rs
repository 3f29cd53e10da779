//! Fake model servers on 127.0.0.1 for the real agent CLIs: the Anthropic
//! Messages API (Claude Code), the OpenAI Responses API (Codex), the
//! Gemini API (Gemini CLI) and the OpenAI Chat Completions API (OpenCode).
//! They
//! speak just enough HTTP/1.1 (one request per connection, answered with
//! `Connection: close`) and stream answers as SSE, so the real CLIs run
//! unchanged against them.
//!
//! A test scripts the model through the person's own prompt, so what is
//! typed into the agent is all a test needs to say:
//! - `[run: CMD]` — the model calls the shell tool with `CMD` (Claude's
//!   `Bash`; Codex's `exec_command` asking for escalated permissions;
//!   Gemini's `run_shell_command`; OpenCode's `bash`), so each shows a
//!   permission dialog unless the command is pre-allowed); `[run: A || B]`
//!   calls it twice in one answer, in parallel (every server);
//! - `[slow: SECONDS]` — the answer streams its first words, then stalls
//!   for that long (a turn a person can interrupt);
//! - `[fail: STATUS]` — every request of the turn (retries too) is answered
//!   with that HTTP status and the API's own error body (400 a bad
//!   request, 429 a rate limit, 500 a server error, 529 overloaded);
//! - `[drop]` — the answer starts, then the connection closes (a network
//!   lost mid-answer), on every retry;
//! - `[ask: QUESTION]` — Claude's model asks the person a multiple-choice
//!   question (the `AskUserQuestion` tool: Yes or No);
//! - `[refuse]` — the model declines to answer (`stop_reason: refusal`);
//! - `[plan: TEXT]` — Claude's model, in plan mode, presents TEXT as its
//!   plan for the person to approve (the `ExitPlanMode` tool);
//! - `[agent: TEXT]` — Claude's model starts a subagent (the `Agent` tool)
//!   with TEXT as its prompt; the subagent's own requests are answered
//!   plainly;
//! - anything else — a plain answer, `Answer N.`
//!
//! After a tool result the model answers `Tool finished.` Requests that
//! are not the conversation (Claude's title and side requests without
//! tools, Codex's title thread) get a short plain answer. Every request is
//! recorded, so tests wait on what the agent asked instead of sleeping.

#![allow(dead_code)]

pub mod anthropic;
pub mod chat;
pub mod gemini;
pub mod responses;

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// One HTTP request as the server received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The path with its query (`/v1/messages?beta=true`).
    pub path: String,
    pub headers: Vec<(String, String)>,
    /// The JSON body, or `Null` for none (or a body that is not JSON).
    pub body: Value,
    /// Whether it belongs to the conversation (not a title or side request).
    pub conversation: bool,
    /// The person's latest prompt in a conversation request.
    pub prompt: String,
    /// When its answer's last byte was written, once it was.
    pub answered: Option<Instant>,
    /// The usage the answer reported, once it was sent whole.
    pub usage: Option<Sent>,
}

impl Request {
    /// Claude's `/compact` asking for the conversation's summary: its
    /// answer becomes a user message of the transcript, and its usage is
    /// recorded nowhere lf reads (docs/decisions/0030-usage.md).
    pub fn is_compaction(&self) -> bool {
        self.prompt.contains(COMPACTION)
    }
}

/// What Claude's compaction request asks the model (its latest prompt).
pub const COMPACTION: &str = "Respond with TEXT ONLY";

/// The usage a fake model reported for one answer, by lf's kinds of
/// token: `input` not served by a cache, `output` (reasoning included),
/// `cache_creation` (Anthropic's cache writes) and `cache_read`. Each
/// answer's numbers are its own (they grow with the request's index), so
/// a request counted twice or missed shows in a sum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sent {
    pub input: u64,
    pub output: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
}

impl Sent {
    /// The usage of the answer to request `index`.
    pub fn of(index: usize) -> Sent {
        let index = index as u64;
        Sent {
            input: 1000 + index,
            output: 40 + index,
            cache_creation: 200 + index,
            cache_read: 3000 + index,
        }
    }

    pub fn add(&mut self, other: &Sent) {
        self.input += other.input;
        self.output += other.output;
        self.cache_creation += other.cache_creation;
        self.cache_read += other.cache_read;
    }
}

/// What the model does for one conversation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Text(String),
    /// Call the shell tool with this command; with ` || ` between
    /// commands, one call each, in parallel (queued dialogs).
    Run(String),
    /// Stream a few words, stall this long, then finish.
    Slow(Duration),
    /// Answer with this HTTP status and an error body.
    Fail(u16),
    /// Start the answer, then close the connection.
    Drop,
    /// Start a subagent with this prompt (Claude's `Agent` tool).
    Agent(String),
    /// Ask the person this question (Claude's `AskUserQuestion` tool).
    Ask(String),
    /// Present this plan for approval (Claude's `ExitPlanMode` tool).
    Plan(String),
    /// Decline to answer (Anthropic's `stop_reason: refusal`).
    Refuse,
}

/// Choose the reply from the person's latest prompt and whether the latest
/// input is a tool result (then the prompt is the one that asked for it).
pub fn decide(text: &str, after_tool_result: bool, turn: usize) -> Reply {
    if after_tool_result {
        if let Some(seconds) = directive(text, "[then-slow:") {
            return Reply::Slow(Duration::from_secs(seconds.parse().unwrap_or(30)));
        }
        return Reply::Text("Tool finished.".to_owned());
    }
    if let Some(status) = directive(text, "[fail:") {
        return Reply::Fail(status.parse().unwrap_or(500));
    }
    if text.contains("[drop]") {
        return Reply::Drop;
    }
    if text.contains("[refuse]") {
        return Reply::Refuse;
    }
    if let Some(plan) = directive(text, "[plan:") {
        return Reply::Plan(plan);
    }
    if let Some(question) = directive(text, "[ask:") {
        return Reply::Ask(question);
    }
    if let Some(prompt) = directive(text, "[agent:") {
        return Reply::Agent(prompt);
    }
    if let Some(command) = directive(text, "[run:") {
        return Reply::Run(command);
    }
    if let Some(seconds) = directive(text, "[slow:") {
        let seconds = seconds.parse().unwrap_or(30);
        return Reply::Slow(Duration::from_secs(seconds));
    }
    Reply::Text(format!("Answer {turn}."))
}

/// The text of `[name: text]` in `text`, if present.
fn directive(text: &str, open: &str) -> Option<String> {
    let start = text.rfind(open)? + open.len();
    let end = text[start..].find(']')? + start;
    Some(text[start..end].trim().to_owned())
}

type Handler = dyn Fn(&Shared, usize, &mut TcpStream) + Send + Sync;

/// State shared by the accept loop, the connections and the test.
pub struct Shared {
    requests: Mutex<Vec<Request>>,
    changed: Condvar,
    stop: AtomicBool,
    turns: AtomicUsize,
}

impl Shared {
    fn request(&self, index: usize) -> Request {
        self.requests.lock().unwrap()[index].clone()
    }

    fn set_conversation(&self, index: usize, prompt: &str) {
        let mut requests = self.requests.lock().unwrap();
        requests[index].conversation = true;
        requests[index].prompt = prompt.to_owned();
        self.changed.notify_all();
    }

    /// The answer to request `index` reported this usage.
    fn sent_usage(&self, index: usize, usage: Sent) {
        self.requests.lock().unwrap()[index].usage = Some(usage);
    }

    fn answered(&self, index: usize) {
        self.requests.lock().unwrap()[index].answered = Some(Instant::now());
        self.changed.notify_all();
    }

    fn next_turn(&self) -> usize {
        self.turns.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// A running fake model server; stopped when dropped.
pub struct Server {
    pub port: u16,
    shared: Arc<Shared>,
}

impl Server {
    fn start(handler: Arc<Handler>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fake model server");
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            requests: Mutex::new(Vec::new()),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
            turns: AtomicUsize::new(0),
        });
        let accept = shared.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept.stopping() {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let shared = accept.clone();
                let handler = handler.clone();
                std::thread::spawn(move || serve_connection(&shared, &*handler, stream));
            }
        });
        Server { port, shared }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The usage the conversation's answers reported, summed: what lf
    /// must count. Requests that are not the conversation (Claude's
    /// titles, Codex's title thread) are left out: the agents record
    /// them nowhere lf reads (docs/decisions/0030-usage.md).
    pub fn conversation_usage(&self) -> Sent {
        let mut sum = Sent::default();
        for request in self.conversation() {
            if let Some(usage) = request.usage
                && !request.is_compaction()
            {
                sum.add(&usage);
            }
        }
        sum
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The conversation requests so far.
    pub fn conversation(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|request| request.conversation)
            .collect()
    }

    /// Wait until `count` conversation requests were answered in full, or
    /// fail after `seconds` listing what arrived.
    pub fn wait_answered(&self, count: usize, seconds: u64) -> Vec<Request> {
        self.wait(
            &format!("{count} answered model requests"),
            seconds,
            |all| {
                all.iter()
                    .filter(|request| request.conversation && request.answered.is_some())
                    .count()
                    >= count
            },
        )
    }

    /// Wait until a conversation request whose latest prompt contains
    /// `text` was answered in full, and return it.
    pub fn wait_prompt(&self, text: &str, seconds: u64) -> Request {
        let found = |all: &[Request]| {
            all.iter()
                .rev()
                .find(|request| {
                    request.conversation
                        && request.answered.is_some()
                        && request.prompt.contains(text)
                })
                .cloned()
        };
        self.wait(&format!("an answer to {text:?}"), seconds, |all| {
            found(all).is_some()
        });
        found(&self.requests()).unwrap()
    }

    /// Whether a conversation request whose latest prompt contains `text`
    /// has been answered in full, now (not waiting).
    pub fn answered_prompt(&self, text: &str) -> bool {
        self.requests().iter().any(|request| {
            request.conversation && request.answered.is_some() && request.prompt.contains(text)
        })
    }

    /// Whether a conversation request whose latest prompt contains `text`
    /// arrived, answered or not (a slow turn is still being answered).
    /// Wait until a conversation request with this prompt arrived
    /// (answered or not).
    pub fn wait_received_prompt(&self, text: &str, seconds: u64) {
        self.wait(
            &format!("a request with the prompt {text:?}"),
            seconds,
            |requests| {
                requests
                    .iter()
                    .any(|request| request.conversation && request.prompt.contains(text))
            },
        );
    }

    pub fn received_prompt(&self, text: &str) -> bool {
        self.requests()
            .iter()
            .any(|request| request.conversation && request.prompt.contains(text))
    }

    /// Wait until a request that `matches` was answered in full (any
    /// request, not only the conversation's), and return it.
    pub fn wait_answered_where(
        &self,
        what: &str,
        seconds: u64,
        matches: impl Fn(&Request) -> bool,
    ) -> Request {
        let found = |all: &[Request]| {
            all.iter()
                .find(|request| request.answered.is_some() && matches(request))
                .cloned()
        };
        self.wait(what, seconds, |all| found(all).is_some());
        found(&self.requests()).unwrap()
    }

    /// Wait until `count` conversation requests arrived (answered or not).
    pub fn wait_received(&self, count: usize, seconds: u64) -> Vec<Request> {
        self.wait(&format!("{count} model requests"), seconds, |all| {
            all.iter().filter(|request| request.conversation).count() >= count
        })
    }

    fn wait(&self, what: &str, seconds: u64, done: impl Fn(&[Request]) -> bool) -> Vec<Request> {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let mut requests = self.shared.requests.lock().unwrap();
        loop {
            if done(&requests) {
                return requests
                    .iter()
                    .filter(|request| request.conversation)
                    .cloned()
                    .collect();
            }
            let now = Instant::now();
            if now >= deadline {
                let seen: Vec<String> = requests
                    .iter()
                    .map(|request| {
                        format!(
                            "{} {} conversation={} answered={}",
                            request.method,
                            request.path,
                            request.conversation,
                            request.answered.is_some()
                        )
                    })
                    .collect();
                panic!("timed out waiting for {what}; the server saw: {seen:#?}");
            }
            requests = self
                .shared
                .changed
                .wait_timeout(requests, deadline - now)
                .unwrap()
                .0;
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve_connection(shared: &Shared, handler: &Handler, mut stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some(request) = read_request(&mut stream) else {
        return;
    };
    let index = {
        let mut requests = shared.requests.lock().unwrap();
        requests.push(request);
        shared.changed.notify_all();
        requests.len() - 1
    };
    handler(shared, index, &mut stream);
    let _ = stream.flush();
    shared.answered(index);
}

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let mut body = Vec::new();
    if let Some(length) = header("content-length").and_then(|value| value.parse().ok()) {
        body.resize(length, 0);
        reader.read_exact(&mut body).ok()?;
    } else if header("transfer-encoding").is_some_and(|value| value.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }
    Some(Request {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        conversation: false,
        prompt: String::new(),
        answered: None,
        usage: None,
    })
}

/// Write a whole response that is not a stream.
fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// Start a server-sent event stream.
fn start_stream(stream: &mut TcpStream) -> bool {
    start_stream_with(stream, "")
}

/// Start a server-sent event stream with more headers (`headers` is
/// whole lines, each ending in CRLF).
fn start_stream_with(stream: &mut TcpStream, headers: &str) -> bool {
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n{headers}Connection: close\r\n\r\n"
    )
    .is_ok()
}

/// Write one SSE event; `false` once the client went away.
fn event(stream: &mut TcpStream, name: &str, data: &Value) -> bool {
    let ok = write!(stream, "event: {name}\ndata: {data}\n\n").is_ok();
    ok && stream.flush().is_ok()
}

/// Stall for `duration`, keeping the stream open with SSE comments; stops
/// early when the client went away (a write fails) or the server stops.
/// Returns whether the client is still there.
fn stall(shared: &Shared, stream: &mut TcpStream, duration: Duration) -> bool {
    stall_with(shared, stream, duration, b": stalling\n\n")
}

/// `stall`, keeping the stream open with `keep_alive` (for a client that
/// does not skip SSE comments).
fn stall_with(
    shared: &Shared,
    stream: &mut TcpStream,
    duration: Duration,
    keep_alive: &[u8],
) -> bool {
    let deadline = Instant::now() + duration;
    while Instant::now() < deadline && !shared.stopping() {
        std::thread::sleep(Duration::from_millis(200));
        if stream
            .write_all(keep_alive)
            .and_then(|()| stream.flush())
            .is_err()
        {
            return false;
        }
    }
    true
}
