//! lf-web's buttons reach the real agent: in a real headless Chromium at a
//! phone's width, a reply typed into a Session's page is the real Claude
//! Code's next user turn at the fake model server, Allow on its permission
//! prompt runs the tool, and Deny on the next one does not.

use super::act::{answered, ask_permission, started};
use super::*;
use crate::web::Web;
use crate::web::browser::Browser;

/// The Session's attention as its page shows it (none: `None`).
fn shown_attention(browser: &Browser) -> Option<String> {
    browser.eval(
        "const badge = document.querySelector('article.session p.line .badge');\
         return badge ? badge.textContent : null",
    )
}

/// Wait until the page shows the Session waiting for `attention`.
fn wait_shown(browser: &Browser, attention: &str) {
    wait_for(&format!("the page to show {attention}"), 30, || {
        (shown_attention(browser).as_deref() == Some(attention)).then_some(())
    });
}

#[test]
fn claude_reply_allow_and_deny_from_the_page_reach_the_agent() {
    let (model, env, record, pane) = started("claude");
    say_until(&env, &pane, "Hello there", || {
        model.received_prompt("Hello there")
    });
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    let web = Web::start(&env);
    let browser = Browser::start();
    browser.goto(&format!(
        "http://{}/s/{}?token={}",
        web.host(),
        record.id,
        web.token
    ));
    wait_shown(&browser, "reply");

    // Reply: typed into the page's field, the model's next user turn; it
    // asks to run a tool.
    let reply = "[run: touch allowed.txt] Make a file, asked from the page";
    let field = browser
        .block(browser.client.find(fantoccini::Locator::Css("#reply-text")))
        .unwrap();
    browser.block(field.send_keys(reply)).unwrap();
    browser.click("button[name=reply]");
    model.wait_received_prompt("Make a file, asked from the page", 30);
    let last = model
        .conversation()
        .into_iter()
        .next_back()
        .expect("a conversation request");
    assert!(last.prompt.contains(reply), "{:?}", last.prompt);

    // Allow: the tool runs, and the page leaves approve.
    wait_screen(&env, &pane, "Do you want to proceed?", 30);
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Approve),
        30,
    );
    wait_shown(&browser, "approve");
    // The page shows the dialog on its screen (looked at again every 5 s),
    // and the request above its buttons.
    wait_for("the page to show the dialog", 30, || {
        let text: String =
            browser.eval("return (document.querySelector('pre.screen') || {}).textContent || ''");
        text.contains("Do you want to proceed?").then_some(())
    });
    // Allow and Deny are one tap; "Allow always" asks again, naming the
    // rule Claude's dialog says it creates.
    let buttons: Vec<String> = browser.eval(
        "return Array.from(document.querySelectorAll('button[name=answer]'))\
           .filter(b => b.checkVisibility()).map(b => b.value)",
    );
    assert_eq!(buttons, ["allow", "deny"]);
    let rule: String =
        browser.eval("return document.querySelector('details.always q.rule').textContent");
    assert!(rule.starts_with("Yes, and "), "{rule}");
    let input: String =
        browser.eval("return document.querySelector('section.request pre.input').textContent");
    assert_eq!(input, "touch allowed.txt");
    let screenshot = browser.block(browser.client.screenshot()).unwrap();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lf-web-approve-phone.png");
    std::fs::write(&path, &screenshot).unwrap();
    eprintln!(
        "a Session waiting for approval, at a phone's width: {}",
        path.display()
    );
    browser.click("button[name=answer][value=allow]");
    wait_file(&env.mkdir("repo").join("allowed.txt"), 20);
    wait_for("the page to leave approve", 30, || {
        (shown_attention(&browser).as_deref() != Some("approve")).then_some(())
    });

    // Deny, on the next prompt: the tool does not run.
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        30,
    );
    ask_permission(
        &env,
        &model,
        &record,
        &pane,
        "[run: touch denied.txt] Make another file",
    );
    browser.goto(&format!("http://{}/s/{}", web.host(), record.id));
    wait_shown(&browser, "approve");
    browser.click("button[name=answer][value=deny]");
    wait_for_state(
        &env,
        &record.id,
        SessionState::Active,
        Some(Attention::Reply),
        20,
    );
    wait_shown(&browser, "reply");
    assert!(!env.mkdir("repo").join("denied.txt").exists());
    assert_eq!(
        answered(&env, &record.id),
        [
            ("reply".to_owned(), "sent".to_owned()),
            ("approve".to_owned(), "allowed".to_owned()),
            ("approve".to_owned(), "denied".to_owned()),
        ]
    );
}
