//! The OpenAI Responses API as Codex calls it: `POST /v1/responses`
//! streamed as SSE (`response.created`, `response.output_item.added`,
//! `response.output_text.delta`, `response.output_item.done`,
//! `response.completed`). Codex's title thread (its input asks for "a
//! concise, single-line task title") is not the conversation: it is
//! answered at once, as a real model answers it before the real turn.

use super::{Reply, Server, Shared, decide, event, respond, stall, start_stream};
use serde_json::{Value, json};
use std::net::TcpStream;
use std::sync::Arc;

/// Start a fake Responses server on 127.0.0.1.
pub fn start() -> Server {
    Server::start(Arc::new(handle))
}

fn handle(shared: &Shared, index: usize, stream: &mut TcpStream) {
    let request = shared.request(index);
    let path = request.path.split('?').next().unwrap_or_default();
    match (request.method.as_str(), path) {
        ("POST", "/v1/responses") => {
            let body = &request.body;
            let reply = if is_title(body) {
                Reply::Text("Fake task title".to_owned())
            } else {
                let (text, tool_result) = latest_input(body);
                shared.set_conversation(index, &text);
                decide(&text, tool_result, shared.next_turn())
            };
            match reply {
                Reply::Fail(status) => fail(stream, status),
                reply => stream_reply(shared, stream, index, &reply),
            }
        }
        ("HEAD", _) => respond(stream, "200 OK", "text/plain", ""),
        _ => respond(
            stream,
            "404 Not Found",
            "application/json",
            &json!({"error": {"message": "not served by the fake model", "type": "not_found"}})
                .to_string(),
        ),
    }
}

/// An error answer as the OpenAI API gives it: its status and body.
fn fail(stream: &mut TcpStream, status: u16) {
    let (line, kind) = match status {
        400 => ("400 Bad Request", "invalid_request_error"),
        429 => ("429 Too Many Requests", "rate_limit_exceeded"),
        _ => ("500 Internal Server Error", "server_error"),
    };
    respond(
        stream,
        line,
        "application/json",
        &json!({"error": {"message": format!("fake {kind}"), "type": kind, "code": kind}})
            .to_string(),
    );
}

/// Whether a request is Codex's title thread asking for a title.
pub fn is_title(body: &Value) -> bool {
    body.to_string().contains("single-line task title")
}

/// The text of the latest user message, and whether the latest input item
/// is a tool's output.
pub fn latest_input(body: &Value) -> (String, bool) {
    let items = body["input"].as_array().cloned().unwrap_or_default();
    let tool_result = items
        .last()
        .is_some_and(|item| item["type"] == "function_call_output");
    let text = items
        .iter()
        .rev()
        .find(|item| item["role"] == "user")
        .and_then(|item| item["content"].as_array())
        .map(|content| {
            content
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    (text, tool_result)
}

fn stream_reply(shared: &Shared, stream: &mut TcpStream, index: usize, reply: &Reply) {
    if !start_stream(stream) {
        return;
    }
    let id = format!("resp_fake_{index}");
    if !event(
        stream,
        "response.created",
        &json!({"type": "response.created", "response": {"id": id}}),
    ) {
        return;
    }
    let item_id = format!("item_fake_{index}");
    let done = match reply {
        // The connection is lost mid-answer (subagents, questions and
        // plans are Claude's).
        Reply::Drop
        | Reply::Fail(_)
        | Reply::Agent(_)
        | Reply::Ask(_)
        | Reply::Plan(_)
        | Reply::Refuse => return,
        Reply::Run(commands) => commands.split(" || ").enumerate().all(|(call, command)| {
            let arguments = json!({
                "cmd": command,
                "sandbox_permissions": "require_escalated",
                "justification": "The person asked to run this command."
            })
            .to_string();
            let item = |status: &str, arguments: &str| {
                json!({"type": "function_call", "id": format!("{item_id}_{call}"),
                       "call_id": format!("call_fake_{index}_{call}"),
                       "name": "exec_command", "arguments": arguments, "status": status})
            };
            event(
                stream,
                "response.output_item.added",
                &json!({"type": "response.output_item.added", "output_index": call, "item": item("in_progress", "")}),
            ) && event(
                stream,
                "response.output_item.done",
                &json!({"type": "response.output_item.done", "output_index": call, "item": item("completed", &arguments)}),
            )
        }),
        Reply::Text(text) => message(stream, &item_id, &[text.as_str()], None),
        Reply::Slow(duration) => message(
            stream,
            &item_id,
            &["Thinking slowly", " … done."],
            Some((shared, *duration)),
        ),
    };
    if done {
        // OpenAI's input counts the cached tokens too, and its output the
        // reasoning ones; no cache writes.
        let sent = super::Sent {
            cache_creation: 0,
            ..super::Sent::of(index)
        };
        let input = sent.input + sent.cache_read;
        let completed = event(
            stream,
            "response.completed",
            &json!({"type": "response.completed", "response": {"id": id, "usage": {
                "input_tokens": input,
                "input_tokens_details": {"cached_tokens": sent.cache_read},
                "output_tokens": sent.output,
                "output_tokens_details": {"reasoning_tokens": 3},
                "total_tokens": input + sent.output
            }}}),
        );
        if completed {
            shared.sent_usage(index, sent);
        }
    }
}

/// An assistant message streamed in parts, optionally stalling after the
/// first.
fn message(
    stream: &mut TcpStream,
    item_id: &str,
    parts: &[&str],
    stall_after_first: Option<(&Shared, std::time::Duration)>,
) -> bool {
    let added = json!({"type": "response.output_item.added", "output_index": 0, "item": {
        "type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []
    }});
    if !event(stream, "response.output_item.added", &added) {
        return false;
    }
    for (number, part) in parts.iter().enumerate() {
        let delta = json!({"type": "response.output_text.delta", "item_id": item_id,
                           "output_index": 0, "content_index": 0, "delta": part});
        if !event(stream, "response.output_text.delta", &delta) {
            return false;
        }
        if number == 0
            && let Some((shared, duration)) = stall_after_first
            && !stall(shared, stream, duration)
        {
            return false;
        }
    }
    let text: String = parts.concat();
    event(
        stream,
        "response.output_item.done",
        &json!({"type": "response.output_item.done", "output_index": 0, "item": {
            "type": "message", "id": item_id, "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]
        }}),
    )
}
