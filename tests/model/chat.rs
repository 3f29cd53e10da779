//! The OpenAI Chat Completions API as OpenCode calls it through its bundled
//! `@ai-sdk/openai-compatible` provider: `POST /v1/chat/completions`
//! streamed as SSE `data:` chunks (`choices[0].delta`, a last chunk with
//! `usage`, then `data: [DONE]`). OpenCode's title request (no tools, its
//! system prompt "You are a title generator") is not the conversation: it
//! is answered at once.
//!
//! An error is answered with the status and OpenAI's error body; its
//! message says `invalid request` for a 4xx, so OpenCode (which retries
//! any message that reads like a server error, `server_error` included)
//! gives up on it at once.

use super::{Reply, Server, Shared, decide, respond, stall, start_stream};
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;

/// Start a fake Chat Completions server on 127.0.0.1.
pub fn start() -> Server {
    Server::start(Arc::new(handle))
}

fn handle(shared: &Shared, index: usize, stream: &mut TcpStream) {
    let request = shared.request(index);
    let path = request.path.split('?').next().unwrap_or_default();
    match (request.method.as_str(), path) {
        ("POST", "/v1/chat/completions") => {
            let body = &request.body;
            let reply = if is_title(body) {
                Reply::Text("Fake title".to_owned())
            } else {
                let (text, tool_result) = latest_input(body);
                shared.set_conversation(index, &text);
                if text.starts_with(COMPACTION) {
                    // The conversation it quotes holds the person's
                    // directives: not to be followed in a summary.
                    Reply::Text("Fake summary of the conversation.".to_owned())
                } else {
                    decide(&text, tool_result, shared.next_turn())
                }
            };
            match reply {
                Reply::Fail(status) => fail(stream, status),
                reply => stream_reply(shared, stream, index, &reply),
            }
        }
        _ => respond(
            stream,
            "404 Not Found",
            "application/json",
            &json!({"error": {"message": "not served by the fake model", "type": "not_found"}})
                .to_string(),
        ),
    }
}

/// An error answer as the OpenAI API gives it.
fn fail(stream: &mut TcpStream, status: u16) {
    let (line, message) = match status {
        400 => ("400 Bad Request", "fake invalid request"),
        401 => ("401 Unauthorized", "fake invalid api key"),
        429 => ("429 Too Many Requests", "fake rate limit"),
        _ => ("500 Internal Server Error", "fake server_error"),
    };
    respond(
        stream,
        line,
        "application/json",
        &json!({"error": {"message": message, "type": "invalid_request_error", "code": null}})
            .to_string(),
    );
}

/// How OpenCode's `/compact` asks for the conversation's summary (its
/// latest user message quotes the whole conversation).
pub const COMPACTION: &str = "Here is the conversation so far:";

/// Whether a request is OpenCode's title request.
pub fn is_title(body: &Value) -> bool {
    body["tools"].as_array().is_none_or(Vec::is_empty)
        && body["messages"][0]["content"]
            .as_str()
            .is_some_and(|system| system.contains("title generator"))
}

/// The text of the latest user message, and whether the latest message is
/// a tool's result.
pub fn latest_input(body: &Value) -> (String, bool) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let tool_result = messages
        .last()
        .is_some_and(|message| message["role"] == "tool");
    let text = messages
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .map(|message| content_text(&message["content"]))
        .unwrap_or_default();
    (text, tool_result)
}

/// A message's content: text, or parts with text.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Write one `data:` chunk; `false` once the client went away.
fn data(stream: &mut TcpStream, chunk: &Value) -> bool {
    write!(stream, "data: {chunk}\n\n").is_ok() && stream.flush().is_ok()
}

fn chunk(index: usize, delta: Value, finish: Option<&str>) -> Value {
    json!({"id": format!("chatcmpl-fake-{index}"), "object": "chat.completion.chunk",
           "created": 1, "model": "fake-model",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// Call tool `name` with `arguments`; the answer's finish, once sent.
fn call_tool(
    stream: &mut TcpStream,
    index: usize,
    name: &str,
    arguments: &Value,
) -> Option<&'static str> {
    call_tools(stream, index, name, std::slice::from_ref(arguments))
}

/// Call tool `name` once with each of `calls` in one answer (parallel
/// calls): one streamed delta each, its `tool_calls` entry at index 0, 1,
/// …, as OpenAI streams them; the answer's finish, once sent.
fn call_tools(
    stream: &mut TcpStream,
    index: usize,
    name: &str,
    calls: &[Value],
) -> Option<&'static str> {
    calls
        .iter()
        .enumerate()
        .all(|(call, arguments)| {
            // The first call keeps the id a single call always had.
            let id = match call {
                0 => format!("call_fake_{index}"),
                call => format!("call_fake_{index}_{call}"),
            };
            let delta = json!({"role": "assistant", "tool_calls": [{"index": call,
                "id": id, "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]});
            data(stream, &chunk(index, delta, None))
        })
        .then_some("tool_calls")
}

fn stream_reply(shared: &Shared, stream: &mut TcpStream, index: usize, reply: &Reply) {
    if !start_stream(stream) {
        return;
    }
    let finish = match reply {
        // `A || B`: one `bash` call each, in parallel.
        Reply::Run(commands) => {
            let calls: Vec<Value> = commands
                .split(" || ")
                .map(|command| json!({"command": command, "description": "Run the person's command"}))
                .collect();
            call_tools(stream, index, "bash", &calls)
        }
        // OpenCode's sub-agent: its `task` tool, the built-in `general`.
        Reply::Agent(prompt) => {
            let arguments = json!({"description": "Ask a sub-agent", "prompt": prompt,
                                   "subagent_type": "general"});
            call_tool(stream, index, "task", &arguments)
        }
        Reply::Text(text) => data(
            stream,
            &chunk(index, json!({"role": "assistant", "content": text}), None),
        )
        .then_some("stop"),
        Reply::Slow(duration) => {
            let first = json!({"role": "assistant", "content": "Thinking slowly"});
            (data(stream, &chunk(index, first, None))
                && stall(shared, stream, *duration)
                && data(stream, &chunk(index, json!({"content": " … done."}), None)))
            .then_some("stop")
        }
        // The connection is lost mid-answer (the rest are Claude's).
        Reply::Drop | Reply::Fail(_) | Reply::Ask(_) | Reply::Plan(_) | Reply::Refuse => {
            let _ = data(
                stream,
                &chunk(
                    index,
                    json!({"role": "assistant", "content": "Start"}),
                    None,
                ),
            );
            return;
        }
    };
    let Some(finish) = finish else { return };
    // Its own numbers for every answer (`Sent::of`), as OpenAI reports
    // them: the prompt's tokens include the cached ones, the completion's
    // the reasoning ones; no cache writes.
    let sent = super::Sent {
        cache_creation: 0,
        ..super::Sent::of(index)
    };
    let prompt = sent.input + sent.cache_read;
    let usage = json!({"id": format!("chatcmpl-fake-{index}"), "object": "chat.completion.chunk",
        "created": 1, "model": "fake-model", "choices": [],
        "usage": {"prompt_tokens": prompt, "completion_tokens": sent.output,
                  "total_tokens": prompt + sent.output,
                  "prompt_tokens_details": {"cached_tokens": sent.cache_read},
                  "completion_tokens_details": {"reasoning_tokens": REASONING_TOKENS}}});
    if data(stream, &chunk(index, json!({}), Some(finish)))
        && data(stream, &usage)
        && write!(stream, "data: [DONE]\n\n").is_ok()
    {
        shared.sent_usage(index, sent);
    }
}

/// The reasoning tokens every answer says its completion tokens include.
pub const REASONING_TOKENS: u64 = 3;
