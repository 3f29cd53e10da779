//! The Anthropic Messages API as Claude Code calls it: `HEAD /` (a
//! connectivity check), `POST /v1/messages?beta=true` streamed as SSE
//! (`message_start` … `message_stop`), and side requests (titles, token
//! counts). A conversation request is one that offers tools.

use super::{Reply, Server, Shared, decide, event, respond, stall, start_stream_with};
use serde_json::{Value, json};
use std::net::TcpStream;
use std::sync::Arc;

/// Start a fake Anthropic server on 127.0.0.1.
pub fn start() -> Server {
    Server::start(Arc::new(handle))
}

fn handle(shared: &Shared, index: usize, stream: &mut TcpStream) {
    let request = shared.request(index);
    let path = request.path.split('?').next().unwrap_or_default();
    match (request.method.as_str(), path) {
        ("HEAD", _) => respond(stream, "200 OK", "text/plain", ""),
        ("POST", "/v1/messages/count_tokens") => respond(
            stream,
            "200 OK",
            "application/json",
            &json!({"input_tokens": 12}).to_string(),
        ),
        ("POST", "/v1/messages") => {
            let body = &request.body;
            let conversation = body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
            let reply = if conversation {
                let (text, tool_result) = latest_user_input(body);
                shared.set_conversation(index, &text);
                decide(&text, tool_result, shared.next_turn())
            } else {
                Reply::Text("Fake session title".to_owned())
            };
            let model = body["model"].as_str().unwrap_or("claude-fake").to_owned();
            if let Reply::Fail(status) = reply {
                fail(stream, status);
            } else if body["stream"].as_bool() == Some(true) {
                stream_reply(shared, stream, index, &model, &reply);
            } else {
                let text = match reply {
                    Reply::Text(text) => text,
                    _ => "Fake answer.".to_owned(),
                };
                respond(
                    stream,
                    "200 OK",
                    "application/json",
                    &json!({
                        "id": format!("msg_fake_{index}"), "type": "message", "role": "assistant",
                        "model": model, "content": [{"type": "text", "text": text}],
                        "stop_reason": "end_turn", "stop_sequence": null,
                        "usage": {"input_tokens": 12, "output_tokens": 4}
                    })
                    .to_string(),
                );
                shared.sent_usage(
                    index,
                    super::Sent {
                        input: 12,
                        output: 4,
                        ..super::Sent::default()
                    },
                );
            }
        }
        _ => respond(
            stream,
            "404 Not Found",
            "application/json",
            &json!({"type": "error", "error": {"type": "not_found_error", "message": "not served by the fake model"}})
                .to_string(),
        ),
    }
}

/// An error answer as the Messages API gives it: its status and body.
fn fail(stream: &mut TcpStream, status: u16) {
    let (line, kind) = match status {
        400 => ("400 Bad Request", "invalid_request_error"),
        401 => ("401 Unauthorized", "authentication_error"),
        429 => ("429 Too Many Requests", "rate_limit_error"),
        529 => ("529 Overloaded", "overloaded_error"),
        _ => ("500 Internal Server Error", "api_error"),
    };
    respond(
        stream,
        line,
        "application/json",
        &json!({"type": "error", "error": {"type": kind, "message": format!("fake {kind}")}})
            .to_string(),
    );
}

/// The person's latest prompt (the text of the latest user message that
/// has text other than Claude's system reminders), and whether the latest
/// message carries a tool result.
pub fn latest_user_input(body: &Value) -> (String, bool) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let user: Vec<&Value> = messages.iter().filter(|m| m["role"] == "user").collect();
    let blocks = |message: &Value| -> Vec<Value> {
        match &message["content"] {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        }
    };
    // A tool's result, or Claude telling the model that a subagent it
    // started in the background finished (a `<task-notification>`): the
    // model answers what came back, it does not start the task again.
    let tool_result = user.last().is_some_and(|message| {
        blocks(message).iter().any(|block| {
            block["type"] == "tool_result"
                || block["text"]
                    .as_str()
                    .is_some_and(|text| text.contains("<task-notification>"))
        })
    });
    let prompt = user.iter().rev().find_map(|message| {
        let text: Vec<String> = blocks(message)
            .iter()
            .filter(|block| block["type"] == "text")
            .filter_map(|block| block["text"].as_str())
            .filter(|text| !text.trim_start().starts_with("<system-reminder>"))
            .map(str::to_owned)
            .collect();
        (!text.is_empty()).then(|| text.join("\n"))
    });
    (prompt.unwrap_or_default(), tool_result)
}

/// The Claude session id a request carries (`metadata.user_id` is a JSON
/// string holding `session_id`).
pub fn session_id(request: &super::Request) -> Option<String> {
    let user = request.body["metadata"]["user_id"].as_str()?;
    let user: Value = serde_json::from_str(user).ok()?;
    user["session_id"].as_str().map(str::to_owned)
}

fn stream_reply(shared: &Shared, stream: &mut TcpStream, index: usize, model: &str, reply: &Reply) {
    // The API's request id, which Claude records beside each message.
    if !start_stream_with(stream, &format!("request-id: req_fake_{index}\r\n")) {
        return;
    }
    let sent = super::Sent::of(index);
    let start = json!({"type": "message_start", "message": {
        "id": format!("msg_fake_{index}"), "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": sent.input, "output_tokens": 1,
                  "cache_creation_input_tokens": sent.cache_creation,
                  "cache_read_input_tokens": sent.cache_read}
    }});
    if !event(stream, "message_start", &start) {
        return;
    }
    let stop_reason = match reply {
        // The connection is lost mid-answer.
        Reply::Drop | Reply::Fail(_) => return,
        Reply::Agent(prompt) => tool_use(
            stream,
            index,
            "Agent",
            &json!({"description": "A subagent", "prompt": prompt, "subagent_type": "general-purpose"}),
        ),
        Reply::Ask(question) => tool_use(
            stream,
            index,
            "AskUserQuestion",
            &json!({"questions": [{
                "question": question, "header": "Choice", "multiSelect": false,
                "options": [
                    {"label": "Yes", "description": "Go ahead"},
                    {"label": "No", "description": "Do not"}
                ]
            }]}),
        ),
        Reply::Plan(plan) => tool_use(stream, index, "ExitPlanMode", &json!({"plan": plan})),
        Reply::Refuse => text_block(stream, "I can't help with that."),
        Reply::Text(text) => text_block(stream, text),
        Reply::Slow(duration) => {
            let started = text_block_start(stream) && text_delta(stream, "Thinking slowly");
            if !started || !stall(shared, stream, *duration) {
                return;
            }
            text_delta(stream, " … done.") && block_stop(stream, 0)
        }
        Reply::Run(commands) => commands.split(" || ").enumerate().all(|(block, command)| {
            tool_use_block(
                stream,
                index,
                block,
                "Bash",
                &json!({"command": command, "description": format!("Run the requested command {block}")}),
            )
        }),
    };
    if !stop_reason {
        return;
    }
    let reason = match reply {
        Reply::Run(_) | Reply::Agent(_) | Reply::Ask(_) | Reply::Plan(_) => "tool_use",
        Reply::Refuse => "refusal",
        _ => "end_turn",
    };
    // The final usage: output is the whole answer's, as the API gives it.
    let sent_whole = event(
        stream,
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
                "usage": {"input_tokens": sent.input, "output_tokens": sent.output,
                          "cache_creation_input_tokens": sent.cache_creation,
                          "cache_read_input_tokens": sent.cache_read}}),
    ) && event(stream, "message_stop", &json!({"type": "message_stop"}));
    if sent_whole {
        shared.sent_usage(index, sent);
    }
}

/// One tool call, its input streamed as JSON.
fn tool_use(stream: &mut TcpStream, index: usize, name: &str, input: &Value) -> bool {
    tool_use_block(stream, index, 0, name, input)
}

/// The tool call of content block `block` (a message's calls are made in
/// parallel).
fn tool_use_block(
    stream: &mut TcpStream,
    index: usize,
    block: usize,
    name: &str,
    input: &Value,
) -> bool {
    event(
        stream,
        "content_block_start",
        &json!({"type": "content_block_start", "index": block, "content_block": {
            "type": "tool_use", "id": format!("toolu_fake_{index}_{block}"), "name": name, "input": {}
        }}),
    ) && event(
        stream,
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": block, "delta": {
            "type": "input_json_delta", "partial_json": input.to_string()
        }}),
    ) && block_stop(stream, block)
}

fn text_block(stream: &mut TcpStream, text: &str) -> bool {
    text_block_start(stream) && text_delta(stream, text) && block_stop(stream, 0)
}

fn text_block_start(stream: &mut TcpStream) -> bool {
    event(
        stream,
        "content_block_start",
        &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    )
}

fn text_delta(stream: &mut TcpStream, text: &str) -> bool {
    event(
        stream,
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
    )
}

fn block_stop(stream: &mut TcpStream, index: usize) -> bool {
    event(
        stream,
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": index}),
    )
}
