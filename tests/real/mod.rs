//! End-to-end tests with the real agent CLIs (the versions of
//! scripts/agent-versions, installed by `scripts/test` into `.tools/agents`), launched
//! through lf in a private tmux server, talking to the fake model servers
//! of `tests/model` on 127.0.0.1. They observe only lf's JSON (records
//! decoded into `SessionRecord`) and drive the agents' TUIs with
//! `tmux send-keys`, as a person would.
//!
//! They are never skipped: without the CLIs they fail saying how to get
//! them (`scripts/test` installs them).

mod act;
mod bench;
mod claude;
mod codex;
mod gemini;
mod opencode;
mod restore;
mod web;

use crate::model::Server;
use crate::util::{Env, wait_for};
use lf::wire::{Attention, SessionRecord, SessionState};
use std::path::{Path, PathBuf};

/// The API key the agents send the fake server; Claude remembers approved
/// keys by their last 20 characters.
const API_KEY: &str = "sk-ant-lf-test-key-0123456789abcdefghij";

/// The version of an agent CLI under test: what scripts/agents.sh installed
/// (`LF_TEST_CLAUDE_VERSION`, `LF_TEST_CODEX_VERSION`: the pins, or
/// `@latest` for scripts/test-latest), else the pin of scripts/agent-versions.
pub fn version(cli: &str) -> String {
    let var = format!("LF_TEST_{}_VERSION", cli.to_uppercase());
    std::env::var(var).unwrap_or_else(|_| {
        include_str!("../../scripts/agent-versions")
            .lines()
            .find_map(|line| line.strip_prefix(cli)?.strip_prefix('='))
            .unwrap_or_else(|| panic!("scripts/agent-versions pins no {cli}"))
            .to_owned()
    })
}

/// The folder holding the real `claude` and `codex`, from `LF_TEST_CLAUDE`
/// and `LF_TEST_CODEX` (set by scripts/test). Fails, never skips.
pub fn agents_dir() -> PathBuf {
    let program = |var: &str, package: &str| -> PathBuf {
        let path = std::env::var_os(var).unwrap_or_else(|| {
            panic!(
                "{var} is not set: the real-CLI tests need {package}; run them through scripts/test, \
                 which installs it into .tools/agents"
            )
        });
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "{var}={} does not exist: run scripts/test to install {package}",
            path.display()
        );
        path
    };
    let claude = program(
        "LF_TEST_CLAUDE",
        &format!("@anthropic-ai/claude-code@{}", version("claude")),
    );
    let codex = program(
        "LF_TEST_CODEX",
        &format!("@openai/codex@{}", version("codex")),
    );
    let dir = claude.parent().unwrap().to_path_buf();
    assert_eq!(
        codex.parent().unwrap(),
        dir,
        "LF_TEST_CLAUDE and LF_TEST_CODEX must be in one folder (node_modules/.bin)"
    );
    dir
}

/// A sealed environment whose agents are the real CLIs.
fn real_env() -> Env {
    let mut env = Env::new();
    env.agents = agents_dir();
    env
}

/// An environment for the real Claude against a fake Anthropic server.
/// `trusted` folders (made under the work folder) skip Claude's
/// workspace-trust dialog.
pub fn claude_env(model: &Server, trusted: &[&str]) -> Env {
    let mut env = real_env();
    with_claude(&mut env, model, trusted);
    env
}

/// An environment for the real Codex against a fake Responses server, with
/// `trusted` folders (made under the work folder) trusted in its config,
/// approvals asked on request, and no paste-burst detection (text that
/// tmux types at once would otherwise be a paste, and an Enter right after
/// it a new line instead of a submission).
pub fn codex_env(model: &Server, trusted: &[&str]) -> Env {
    let mut env = real_env();
    with_codex(&mut env, model, trusted);
    env
}

/// An environment for both real CLIs, each against its fake server.
pub fn agents_env(anthropic: &Server, responses: &Server, trusted: &[&str]) -> Env {
    let mut env = real_env();
    with_claude(&mut env, anthropic, trusted);
    with_codex(&mut env, responses, trusted);
    env
}

/// An environment for the real OpenCode against a fake Chat Completions
/// server. The person's own global config (`~/.config/opencode`) names the
/// fake server as an OpenAI-compatible provider (OpenCode bundles that
/// provider package: nothing is fetched) and makes shell commands ask
/// first; OpenCode fetches no model list from the network.
pub fn opencode_env(model: &Server) -> Env {
    let mut env = real_env();
    let opencode = std::env::var_os("LF_TEST_OPENCODE").map(PathBuf::from);
    assert!(
        opencode
            .as_deref()
            .is_some_and(|path| path.parent() == Some(&env.agents)),
        "LF_TEST_OPENCODE must be opencode-ai@{} beside LF_TEST_CLAUDE: run scripts/test, which installs it into .tools/agents",
        version("opencode")
    );
    let config = env.dir.path().join(".config/opencode");
    std::fs::create_dir_all(&config).unwrap();
    let settings = serde_json::json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {"fake": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": format!("{}/v1", model.url()), "apiKey": "sk-lf-test"},
            "models": {"fake-model": {"name": "Fake Model"}}
        }},
        "model": "fake/fake-model",
        "permission": {"bash": "ask"},
        "autoupdate": false,
    });
    std::fs::write(config.join("opencode.json"), settings.to_string()).unwrap();
    // With any plugin (lf's), OpenCode first makes sure each config folder
    // has `@opencode-ai/plugin` installed, and waits for that: offline, npm
    // fails only after about 70 s. A person online has it after the first
    // start; this says so as OpenCode checks it (a `node_modules` folder
    // and a lock file naming the package). lf's plugin imports nothing.
    std::fs::create_dir_all(config.join("node_modules")).unwrap();
    let lock = serde_json::json!({"lockfileVersion": 3, "packages": {"": {
        "dependencies": {"@opencode-ai/plugin": version("opencode")}
    }}});
    std::fs::write(config.join("package-lock.json"), lock.to_string()).unwrap();
    env.vars.retain(|(key, _)| key != "TERM");
    env.vars.extend([
        ("OPENCODE_DISABLE_MODELS_FETCH".into(), "1".into()),
        ("OPENCODE_DISABLE_AUTOUPDATE".into(), "1".into()),
        ("TERM".into(), "xterm-256color".into()),
    ]);
    env
}

fn with_claude(env: &mut Env, model: &Server, trusted: &[&str]) {
    let projects: serde_json::Map<String, serde_json::Value> = trusted
        .iter()
        .map(|name| {
            let path = env.mkdir(name);
            (
                path.display().to_string(),
                serde_json::json!({"hasTrustDialogAccepted": true, "allowedTools": []}),
            )
        })
        .collect();
    let state = serde_json::json!({
        "hasCompletedOnboarding": true,
        "lastOnboardingVersion": version("claude"),
        "customApiKeyResponses": {"approved": [&API_KEY[API_KEY.len() - 20..]], "rejected": []},
        "projects": projects,
        "hasSeenAutoDefaultNotice": true,
    });
    std::fs::write(env.dir.path().join(".claude.json"), state.to_string()).unwrap();
    // Claude Code (since about 2.1.300) starts in auto mode, which approves
    // commands itself through a check on Anthropic's server; a person who
    // wants the dialogs sets the default mode, as these tests do. One test
    // keeps auto mode (`claude_auto_mode_that_cannot_check_waits_for_the_person`).
    let settings = env.dir.path().join(".claude");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("settings.json"),
        r#"{"permissions": {"defaultMode": "default"}, "skipAutoPermissionPrompt": true}"#,
    )
    .unwrap();
    env.vars.extend([
        ("ANTHROPIC_BASE_URL".into(), model.url()),
        ("ANTHROPIC_API_KEY".into(), API_KEY.into()),
        (
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        ),
        ("DISABLE_AUTOUPDATER".into(), "1".into()),
        ("TERM".into(), "xterm-256color".into()),
    ]);
}

fn with_codex(env: &mut Env, model: &Server, trusted: &[&str]) {
    let home = env.dir.path().join(".codex");
    std::fs::create_dir_all(&home).unwrap();
    let mut config = format!(
        "model = \"gpt-fake\"\nmodel_provider = \"local\"\ncheck_for_update_on_startup = false\n\
         approval_policy = \"on-request\"\ndisable_paste_burst = true\n\n\
         [model_providers.local]\nname = \"local\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
         env_key = \"LF_TEST_MODEL_KEY\"\nrequest_max_retries = 1\nstream_max_retries = 1\n",
        model.url()
    );
    for name in trusted {
        let path = env.mkdir(name);
        config.push_str(&format!(
            "\n[projects.{}]\ntrust_level = \"trusted\"\n",
            serde_json::Value::from(path.display().to_string())
        ));
    }
    std::fs::write(home.join("config.toml"), config).unwrap();
    env.vars.retain(|(key, _)| key != "TERM");
    env.vars.extend([
        ("CODEX_HOME".into(), home.display().to_string()),
        ("LF_TEST_MODEL_KEY".into(), "sk-lf-test".into()),
        ("TERM".into(), "xterm-256color".into()),
    ]);
}

/// The folder holding the real `gemini`, from `LF_TEST_GEMINI` (set by
/// scripts/test). Fails, never skips.
pub fn gemini_dir() -> PathBuf {
    let path = std::env::var_os("LF_TEST_GEMINI").unwrap_or_else(|| {
        panic!(
            "LF_TEST_GEMINI is not set: the real-CLI tests need @google/gemini-cli@{}; run them \
             through scripts/test, which installs it into .tools/agents",
            version("gemini")
        )
    });
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "LF_TEST_GEMINI={} does not exist: run scripts/test to install Gemini CLI",
        path.display()
    );
    path.parent().unwrap().to_path_buf()
}

/// An environment for the real Gemini CLI against a fake Gemini API
/// server: the API key chosen as its sign-in (as a person's first run
/// leaves it), `trusted` folders (made under the work folder) in its
/// trusted folders, and one attempt per model request (a failing one
/// ends the turn at once instead of after minutes of retries).
pub fn gemini_env(model: &Server, trusted: &[&str]) -> Env {
    let mut env = Env::new();
    env.agents = gemini_dir();
    let home = env.dir.path().join(".gemini");
    std::fs::create_dir_all(&home).unwrap();
    let settings = serde_json::json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"maxAttempts": 1, "enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "privacy": {"usageStatisticsEnabled": false},
    });
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
    let folders: serde_json::Map<String, serde_json::Value> = trusted
        .iter()
        .map(|name| (env.mkdir(name).display().to_string(), "TRUST_FOLDER".into()))
        .collect();
    std::fs::write(
        home.join("trustedFolders.json"),
        serde_json::Value::Object(folders).to_string(),
    )
    .unwrap();
    env.vars.retain(|(key, _)| key != "TERM");
    env.vars.extend([
        ("GOOGLE_GEMINI_BASE_URL".into(), model.url()),
        ("GEMINI_API_KEY".into(), "lf-test-gemini-key".into()),
        ("TERM".into(), "xterm-256color".into()),
    ]);
    env
}

/// Wait until the Session's record satisfies `done` (a generous failure
/// limit, not a speed assertion); the failure shows the last record.
pub fn wait_record(
    env: &Env,
    id: &str,
    what: &str,
    seconds: u64,
    done: impl Fn(&SessionRecord) -> bool,
) -> SessionRecord {
    let mut last = None;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        let record = env.show(id);
        if done(&record) {
            return record;
        }
        if std::time::Instant::now() >= deadline {
            let screen = record
                .terminal_ids
                .first()
                .map(|pane| env.capture(pane))
                .unwrap_or_default();
            panic!(
                "timed out waiting for {what} on Session {id}\nlast record: {:#?}\nscreen:\n{screen}\nhook.log:\n{}",
                last.unwrap_or(record),
                std::fs::read_to_string(env.home().join("hook.log")).unwrap_or_default()
            );
        }
        last = Some(record);
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
}

/// Wait for a state and attention.
pub fn wait_for_state(
    env: &Env,
    id: &str,
    state: SessionState,
    attention: Option<Attention>,
    seconds: u64,
) -> SessionRecord {
    wait_record(
        env,
        id,
        &format!("state {state:?} with attention {attention:?}"),
        seconds,
        |record| record.state == state && record.attention == attention,
    )
}

/// Wait until a pane shows `text`.
pub fn wait_screen(env: &Env, pane: &str, text: &str, seconds: u64) -> String {
    let mut screen = String::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        if let Ok(output) = env
            .tmux_command(&["capture-pane", "-p", "-t", pane])
            .output()
        {
            screen = String::from_utf8_lossy(&output.stdout).into_owned();
            if screen.contains(text) {
                return screen;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {text:?} in pane {pane}; it shows:\n{screen}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Press keys (tmux key names) in a pane.
pub fn keys(env: &Env, pane: &str, keys: &[&str]) {
    let mut args = vec!["send-keys", "-t", pane];
    args.extend_from_slice(keys);
    env.tmux(&args);
}

/// Type text into an agent's prompt and submit it, once the agent shows it.
pub fn say(env: &Env, pane: &str, text: &str) {
    env.tmux(&["send-keys", "-t", pane, "-l", text]);
    wait_screen(env, pane, &text[..text.len().min(20)], 10);
    keys(env, pane, &["Enter"]);
}

/// As `say`, for a prompt whose submission `arrived` can see: an Enter
/// that the agent's composer lost under load (it happens with Codex) is
/// pressed again, until the prompt arrived or 20 s passed.
pub fn say_until(env: &Env, pane: &str, text: &str, arrived: impl Fn() -> bool) {
    env.tmux(&["send-keys", "-t", pane, "-l", text]);
    wait_screen(env, pane, &text[..text.len().min(20)], 10);
    press_until(
        env,
        pane,
        "Enter",
        3,
        20,
        &format!("{text:?} reaching the model"),
        arrived,
    );
}

/// Press `key` in a pane until `done`, pressing it again every `every`
/// seconds while not (a busy TUI can drop a key); fail after `seconds`,
/// showing the screen.
pub fn press_until(
    env: &Env,
    pane: &str,
    key: &str,
    every: u64,
    seconds: u64,
    what: &str,
    done: impl Fn() -> bool,
) {
    assert!(
        pressed_until(env, pane, key, every, seconds, done),
        "{key} never led to {what}; the pane shows:\n{}",
        env.tmux(&["capture-pane", "-p", "-t", pane])
    );
}

/// As `press_until`, saying whether `done` came within `seconds` instead
/// of failing.
pub fn pressed_until(
    env: &Env,
    pane: &str,
    key: &str,
    every: u64,
    seconds: u64,
    done: impl Fn() -> bool,
) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        keys(env, pane, &[key]);
        let pressed = std::time::Instant::now();
        while pressed.elapsed() < std::time::Duration::from_secs(every) {
            if done() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
    }
}

/// Kill the Session's pane, then open it again (detached): the new pane,
/// once `ready` (the agent's prompt) is on its screen, within `seconds`.
pub fn kill_and_reopen(env: &Env, id: &str, pane: &str, ready: &str, seconds: u64) -> String {
    env.tmux(&["kill-pane", "-t", pane]);
    // Lost as the pane goes; its agent, told of the hang-up, ends soon after.
    let killed = wait_record(env, id, "lost, its agent ended", 30, |record| {
        record.state == SessionState::Lost && !record.alive
    });
    assert_eq!(killed.lost, Some(lf::wire::LostReason::Terminal));
    let opened: SessionRecord = env.run("lf-session-open", &["--detach", id]).json();
    assert_eq!(opened.state, SessionState::Active, "{opened:#?}");
    let pane = self::pane(&opened);
    wait_screen(env, &pane, ready, seconds);
    pane
}

/// Run the real agent `program` (not through lf) in the test's sealed
/// environment, in `cwd` when given; it must succeed.
pub fn agent_cli(env: &Env, program: &str, cwd: Option<&Path>, args: &[&str]) {
    let mut command = std::process::Command::new(env.agents.join(program));
    command
        .env_clear()
        .env("PATH", env.path())
        .env("HOME", env.dir.path())
        .envs(env.vars.iter().map(|(key, value)| (key, value)))
        .args(args)
        .stdin(std::process::Stdio::null());
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let output = command.output().expect("the agent CLI runs");
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The one pane of a Session's live client.
pub fn pane(record: &SessionRecord) -> String {
    assert_eq!(
        record.terminal_ids.len(),
        1,
        "expected one live client: {record:#?}"
    );
    record.terminal_ids[0].clone()
}

/// A tmux server already running (as a person's usually is), started
/// without the variables the person exports later: what `lf-session-new`
/// launches must take them from its caller, not from the server.
pub fn tmux_server_already_running(env: &Env) {
    env.tmux(&["new-session", "-d", "-s", "already-running", "--", "cat"]);
}

/// Start a session with `lf-session-new` in `cwd` and return its record.
pub fn new_session(env: &Env, provider: &str, cwd: &Path, prompt: Option<&str>) -> SessionRecord {
    let mut args = vec!["--provider", provider, "--cwd", cwd.to_str().unwrap()];
    if let Some(prompt) = prompt {
        args.push(prompt);
    }
    env.run("lf-session-new", &args).json()
}

/// Wait for a file to exist (the effect of a tool the agent ran).
pub fn wait_file(path: &Path, seconds: u64) {
    wait_for(&format!("{} to exist", path.display()), seconds, || {
        path.exists().then_some(())
    });
}

/// Wait until some file under `dir` (recursively) holds every one of
/// `texts`: an agent's own history written behind its screen, before a
/// test kills the agent and resumes it (a precondition, not a check of lf).
pub fn wait_history(dir: &Path, texts: &[&str], seconds: u64) {
    fn holds(dir: &Path, texts: &[&str]) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        entries.flatten().any(|entry| {
            let path = entry.path();
            if path.is_dir() {
                holds(&path, texts)
            } else {
                std::fs::read_to_string(&path)
                    .is_ok_and(|text| texts.iter().all(|wanted| text.contains(wanted)))
            }
        })
    }
    wait_for(
        &format!("{texts:?} in the agent's history under {}", dir.display()),
        seconds,
        || holds(dir, texts).then_some(()),
    );
}

/// Say `prompt` and wait until the turn it starts has ended in `reply`:
/// after the model was asked, a `reply` newer than the previous one.
pub fn turn_ends_in_reply(
    env: &Env,
    model: &Server,
    record: &SessionRecord,
    pane: &str,
    prompt: &str,
) {
    let before = env.show(&record.id).attention_since;
    say(env, pane, prompt);
    model.wait_received_prompt(prompt, 30);
    wait_record(
        env,
        &record.id,
        &format!("reply after {prompt:?}"),
        60,
        |now| {
            now.state == SessionState::Active
                && now.attention == Some(Attention::Reply)
                && now.attention_since > before
        },
    );
}

/// A first prompt that starts with `-`, given after `--` alone, reaches
/// the model as the prompt (issue 20: before any `--`, the agent read it
/// as its own flags), and its turn ends in `reply`.
pub fn a_prompt_after_dashes_reaches_the_model(
    env: &Env,
    model: &Server,
    provider: &str,
    prompt: &str,
) {
    let cwd = env.mkdir("repo");
    let args = [
        "--provider",
        provider,
        "--cwd",
        cwd.to_str().unwrap(),
        "--",
        prompt,
    ];
    let record: SessionRecord = env.run("lf-session-new", &args).json();
    model.wait_prompt(prompt, 60);
    wait_for_state(
        env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
}

/// Answer a dialog that shows `dialog` with `key`, as a person does: newer
/// Claude Code releases ignore keys pressed in the first moments a dialog
/// is up (against a keystroke meant for the prompt), and a key that reaches
/// Codex's overlay as it opens can be lost (under a whole suite's load it
/// once took over 20 s), so the key is pressed again, two seconds apart,
/// until the dialog is gone.
pub fn answer(env: &Env, pane: &str, dialog: &str, key: &str) {
    wait_screen(env, pane, dialog, 30);
    press_until(
        env,
        pane,
        key,
        2,
        60,
        &format!("the dialog {dialog:?} closing"),
        || !env.capture_visible(pane).contains(dialog),
    );
}

/// The lines of a dialog's options on screen: whether it is the selected
/// one, its number when it has one, and its text without either.
pub fn options(screen: &str) -> Vec<(bool, Option<String>, String)> {
    screen
        .lines()
        .map(|line| {
            let line = line.trim();
            let selected = line.starts_with('❯');
            let text = line.trim_start_matches('❯').trim_start();
            match text.split_once(". ") {
                Some((number, rest)) if number.chars().all(|c| c.is_ascii_digit()) => {
                    (selected, Some(number.to_owned()), rest.to_owned())
                }
                _ => (selected, None, text.to_owned()),
            }
        })
        .collect()
}

/// The key of a dialog's option with this label ("3" for "3. No" in one
/// release, "4" in the next).
pub fn option_key(env: &Env, pane: &str, label: &str) -> String {
    options(&env.capture_visible(pane))
        .into_iter()
        .find_map(|(_, number, text)| number.filter(|_| text.starts_with(label)))
        .unwrap_or_else(|| panic!("no option {label:?} on the screen of {pane}"))
}

/// Pick the option that starts with `label` in a dialog that shows
/// `dialog`, by moving the selection to it (releases differ in which
/// option is preselected: Claude Code 2.1.332 preselects "No, exit" in its
/// trust dialog), then answer it with Enter — as a person does, looking
/// again before each Enter: a dialog that ignores its first keys may also
/// draw itself anew with the first option selected again (2.1.332's trust
/// dialog does), and an Enter then would pick that one.
pub fn choose(env: &Env, pane: &str, dialog: &str, label: &str) {
    wait_screen(env, pane, dialog, 30);
    // Let it draw itself anew first: act only on a screen that stayed the
    // same for a second.
    let mut shown = env.capture_visible(pane);
    let mut since = std::time::Instant::now();
    while since.elapsed() < std::time::Duration::from_secs(1) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let now = env.capture_visible(pane);
        if now != shown {
            shown = now;
            since = std::time::Instant::now();
        }
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let open = || env.capture_visible(pane).contains(dialog);
    while open() {
        assert!(
            std::time::Instant::now() < deadline,
            "the dialog {dialog:?} never took {label:?}; the pane shows:\n{}",
            env.capture_visible(pane)
        );
        let shown = options(&env.capture_visible(pane));
        let selected = shown.iter().position(|(selected, _, _)| *selected);
        let wanted = shown
            .iter()
            .position(|(_, _, text)| text.starts_with(label));
        match (selected, wanted) {
            (Some(selected), Some(wanted)) if selected == wanted => {
                // Still selected a moment later: not a drawing about to be
                // replaced.
                std::thread::sleep(std::time::Duration::from_millis(300));
                if !options(&env.capture_visible(pane))
                    .iter()
                    .any(|(selected, _, text)| *selected && text.starts_with(label))
                {
                    continue;
                }
                keys(env, pane, &["Enter"]);
                let pressed = std::time::Instant::now();
                while open() && pressed.elapsed() < std::time::Duration::from_secs(2) {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            }
            (Some(selected), Some(wanted)) => {
                keys(env, pane, &[if wanted > selected { "Down" } else { "Up" }]);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            // Between two drawings, or gone meanwhile.
            _ => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    }
}

/// Wait until lf's usage of a Session is exactly what the fake model
/// reported for the conversation's answers (the agent writes its records
/// behind its screen, a moment after the turn ends); fail showing both and
/// the agent's records where usage was read from.
pub fn wait_usage_is_the_models(env: &Env, model: &Server, id: &str) -> lf::wire::UsageRow {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let sent = model.conversation_usage();
        let row = crate::usage::session_usage(env, id);
        let counted = row.as_ref().map(|row| row.usage.tokens);
        let expected = lf::wire::TokenCounts {
            input: sent.input,
            output: sent.output,
            cache_creation: sent.cache_creation,
            cache_read: sent.cache_read,
            total: sent.input + sent.output + sent.cache_creation + sent.cache_read,
        };
        if counted == Some(expected) {
            return row.unwrap();
        }
        if std::time::Instant::now() >= deadline {
            let requests: Vec<String> = model
                .conversation()
                .iter()
                .map(|request| {
                    let end = request
                        .prompt
                        .char_indices()
                        .nth(60)
                        .map_or(request.prompt.len(), |(at, _)| at);
                    format!("{:?} {:?}", &request.prompt[..end], request.usage)
                })
                .collect();
            panic!(
                "lf counted {counted:#?}\nbut the model sent {expected:#?} for the conversation's requests {requests:#?}\nrecords:\n{}",
                agent_records(&env.dir.path().join(".claude/projects"))
                    + &agent_records(&env.dir.path().join(".codex/sessions"))
                    + &agent_records(&env.dir.path().join(".gemini/tmp"))
                    + &opencode_records(&env.dir.path().join(".local/share/opencode/opencode.db"))
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// Every message row of OpenCode's database, for a failure's message.
fn opencode_records(database: &Path) -> String {
    let Ok(conn) =
        rusqlite::Connection::open_with_flags(database, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return String::new();
    };
    let Ok(mut statement) =
        conn.prepare("SELECT rowid, session_id, data FROM message ORDER BY rowid")
    else {
        return String::new();
    };
    let rows = statement.query_map([], |row| {
        Ok(format!(
            "{} {} {}\n",
            row.get::<_, i64>(0)?,
            row.get::<_, String>(1)?,
            row.get::<_, String>(2)?
        ))
    });
    rows.map(|rows| rows.flatten().collect())
        .unwrap_or_default()
}

/// Every line of the agents' records under `dir`, each shortened, for a
/// failure's message.
fn agent_records(dir: &Path) -> String {
    let mut shown = String::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return shown;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            shown.push_str(&agent_records(&path));
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            shown.push_str(&format!("== {}\n", path.display()));
            for line in text.lines() {
                let end = line
                    .char_indices()
                    .nth(600)
                    .map_or(line.len(), |(at, _)| at);
                shown.push_str(&line[..end]);
                shown.push('\n');
            }
        }
    }
    shown
}
