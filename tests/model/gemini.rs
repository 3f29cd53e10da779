//! The Gemini API as Gemini CLI calls it (with `GOOGLE_GEMINI_BASE_URL`
//! and `GEMINI_API_KEY`): `POST /v1beta/models/<model>:generateContent`
//! and `:streamGenerateContent?alt=sse`, answered with
//! `GenerateContentResponse` JSON (streamed as SSE `data:` lines). The
//! conversation is a request that offers tools; the CLI's side requests
//! (its model router's complexity classifier, and any other that asks
//! for JSON by a `responseJsonSchema`) are answered at once with JSON of
//! that schema's shape. A subagent's conversation (a request offering
//! `complete_task`) ends at once. Every answer reports `usageMetadata` of
//! its own ([`sent`]), recorded once the answer was sent whole.

use super::{Reply, Server, Shared, decide, respond, stall_with, start_stream};
use serde_json::{Value, json};
use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;

/// The shell tool of Gemini CLI.
pub const SHELL_TOOL: &str = "run_shell_command";
/// The tool that starts a subagent, and the subagent `[agent: TEXT]`
/// starts.
const INVOKE_AGENT: &str = "invoke_agent";
const SUBAGENT: &str = "generalist";
/// The tool a subagent ends its work with.
pub const COMPLETE_TASK: &str = "complete_task";

/// Start a fake Gemini API server on 127.0.0.1.
pub fn start() -> Server {
    Server::start(Arc::new(handle))
}

fn handle(shared: &Shared, index: usize, stream: &mut TcpStream) {
    let request = shared.request(index);
    let path = request.path.split('?').next().unwrap_or_default();
    let method = path
        .strip_prefix("/v1beta/models/")
        .and_then(|rest| rest.split_once(':'))
        .map(|(_, method)| method);
    let streamed = match (request.method.as_str(), method) {
        ("POST", Some("streamGenerateContent")) => true,
        ("POST", Some("generateContent")) => false,
        _ => {
            return respond(
                stream,
                "404 Not Found",
                "application/json",
                &json!({"error": {"code": 404, "message": "not served by the fake model", "status": "NOT_FOUND"}})
                    .to_string(),
            );
        }
    };
    let body = &request.body;
    let reply = if let Some(schema) = json_schema(body) {
        Reply::Text(shaped(schema).to_string())
    } else if offers(body, COMPLETE_TASK) {
        // A subagent's conversation (its own chat file): done at once,
        // with the generalist's output (`{response}`).
        let (text, _) = latest_input(body);
        shared.set_conversation(index, &text);
        let done = json!({"functionCall": {
            "name": COMPLETE_TASK, "args": {"result": {"response": "Fake result."}}
        }});
        let answer = response(&[done], Some(index));
        if !streamed {
            respond(stream, "200 OK", "application/json", &answer.to_string());
        } else if !(start_stream(stream) && data(stream, &answer)) {
            return;
        }
        return shared.sent_usage(index, sent(index));
    } else if is_conversation(body) {
        let (text, tool_result) = latest_input(body);
        shared.set_conversation(index, &text);
        decide(&text, tool_result, shared.next_turn())
    } else {
        Reply::Text("Fake answer.".to_owned())
    };
    match reply {
        Reply::Fail(status) => fail(stream, status),
        reply if streamed => stream_reply(shared, stream, index, &reply),
        reply => {
            respond(
                stream,
                "200 OK",
                "application/json",
                &response(&parts(&reply), Some(index)).to_string(),
            );
            // A side request's usage, reported as any (the tests show it
            // is not what lf counts: `Server::conversation_usage`).
            shared.sent_usage(index, sent(index));
        }
    }
}

/// A conversation request: one that offers the model tools.
pub fn is_conversation(body: &Value) -> bool {
    body["tools"].as_array().is_some_and(|tools| {
        tools
            .iter()
            .any(|tool| tool["functionDeclarations"].as_array().is_some())
    })
}

/// Whether a request offers the model the function `name`.
pub fn offers(body: &Value, name: &str) -> bool {
    body["tools"].as_array().is_some_and(|tools| {
        tools.iter().any(|tool| {
            tool["functionDeclarations"]
                .as_array()
                .is_some_and(|functions| functions.iter().any(|function| function["name"] == name))
        })
    })
}

/// The schema a side request wants its JSON answer in.
fn json_schema(body: &Value) -> Option<&Value> {
    let config = &body["generationConfig"];
    [&config["responseJsonSchema"], &config["responseSchema"]]
        .into_iter()
        .find(|schema| schema.is_object())
}

/// A JSON value of a schema's shape: each property a placeholder of its
/// type (the classifier gets a low complexity score).
fn shaped(schema: &Value) -> Value {
    let kind = schema["type"]
        .as_str()
        .unwrap_or("STRING")
        .to_ascii_uppercase();
    match kind.as_str() {
        "OBJECT" => Value::Object(
            schema["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(name, property)| (name.clone(), shaped(property)))
                .collect(),
        ),
        "INTEGER" | "NUMBER" => json!(10),
        "BOOLEAN" => json!(false),
        "ARRAY" => json!([]),
        _ => json!("fake"),
    }
}

/// The text of the latest user message with text (the person's prompt),
/// and whether the latest content is a tool's result.
pub fn latest_input(body: &Value) -> (String, bool) {
    let contents = body["contents"].as_array().cloned().unwrap_or_default();
    let has = |content: &Value, part: &str| {
        content["parts"]
            .as_array()
            .is_some_and(|parts| parts.iter().any(|item| !item[part].is_null()))
    };
    let tool_result = contents
        .last()
        .is_some_and(|content| has(content, "functionResponse"));
    let text = contents
        .iter()
        .rev()
        .find(|content| content["role"] == "user" && has(content, "text"))
        .and_then(|content| content["parts"].as_array())
        .map(|parts| {
            parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    (text, tool_result)
}

/// The whole of a conversation's text, every turn, as the model was sent
/// it (for a test that a resume carried the history).
pub fn history(body: &Value) -> String {
    body["contents"].to_string()
}

/// An error answer as the Gemini API gives it: its status and body.
fn fail(stream: &mut TcpStream, status: u16) {
    let (line, kind) = match status {
        400 => ("400 Bad Request", "INVALID_ARGUMENT"),
        429 => ("429 Too Many Requests", "RESOURCE_EXHAUSTED"),
        503 => ("503 Service Unavailable", "UNAVAILABLE"),
        _ => ("500 Internal Server Error", "INTERNAL"),
    };
    respond(
        stream,
        line,
        "application/json",
        &json!({"error": {"code": status, "message": format!("fake {kind}"), "status": kind}})
            .to_string(),
    );
}

/// The parts of a whole answer: for `A || B`, one `functionCall` part
/// each, in one answer (parallel calls, as the Gemini API gives them).
fn parts(reply: &Reply) -> Vec<Value> {
    match reply {
        Reply::Run(commands) => commands
            .split(" || ")
            .map(|command| {
                json!({"functionCall": {
                    "name": SHELL_TOOL,
                    "args": {"command": command, "description": "The person asked to run this command."}
                }})
            })
            .collect(),
        Reply::Agent(prompt) => vec![json!({"functionCall": {
            "name": INVOKE_AGENT, "args": {"agent_name": SUBAGENT, "prompt": prompt}
        }})],
        Reply::Text(text) => vec![json!({"text": text})],
        _ => vec![json!({"text": "Fake answer."})],
    }
}

/// Thinking tokens of every answer, reported apart from its output.
const THOUGHTS: u64 = 3;
/// Tokens of every answer's tool-use prompt, reported apart from its
/// prompt.
const TOOL_PROMPT: u64 = 5;

/// The usage the answer to request `index` reports, by lf's kinds: no
/// cache writes (Gemini reports none).
pub fn sent(index: usize) -> super::Sent {
    super::Sent {
        cache_creation: 0,
        ..super::Sent::of(index)
    }
}

/// `usageMetadata` as the Gemini API gives it for `sent`: the prompt's
/// count includes the cached tokens and leaves out the tool-use prompt's;
/// the candidates' count leaves out the thoughts; the total is all of them.
fn usage_metadata(sent: &super::Sent) -> Value {
    json!({
        "promptTokenCount": sent.input + sent.cache_read - TOOL_PROMPT,
        "cachedContentTokenCount": sent.cache_read,
        "candidatesTokenCount": sent.output - THOUGHTS,
        "thoughtsTokenCount": THOUGHTS,
        "toolUsePromptTokenCount": TOOL_PROMPT,
        "totalTokenCount": sent.input + sent.cache_read + sent.output,
    })
}

/// One `GenerateContentResponse`: these parts of the model's answer, and
/// (the last one, of request `index`) its finish reason and token counts.
fn response(parts: &[Value], last: Option<usize>) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    let mut response = json!({"modelVersion": "gemini-fake"});
    if let Some(index) = last {
        candidate["finishReason"] = json!("STOP");
        response["usageMetadata"] = usage_metadata(&sent(index));
    }
    response["candidates"] = json!([candidate]);
    response
}

/// Write one SSE `data:` line; `false` once the client went away.
fn data(stream: &mut TcpStream, value: &Value) -> bool {
    write!(stream, "data: {value}\r\n\r\n").is_ok() && stream.flush().is_ok()
}

fn stream_reply(shared: &Shared, stream: &mut TcpStream, index: usize, reply: &Reply) {
    if !start_stream(stream) {
        return;
    }
    let first = json!({"text": "Thinking slowly"});
    let whole = match reply {
        Reply::Slow(duration) => {
            // The client's SSE reader skips whitespace before `data:`,
            // not comments: the stall keeps the stream open with newlines.
            data(stream, &response(&[first], None))
                && stall_with(shared, stream, *duration, b"\n")
                && data(
                    stream,
                    &response(&[json!({"text": " … done."})], Some(index)),
                )
        }
        // The connection is lost mid-answer.
        Reply::Drop => {
            let _ = data(stream, &response(&[first], None));
            false
        }
        reply => data(stream, &response(&parts(reply), Some(index))),
    };
    if whole {
        shared.sent_usage(index, sent(index));
    }
}
