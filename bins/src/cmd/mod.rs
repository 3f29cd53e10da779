//! One module per binary.

pub mod flow;
pub mod handoff;
pub mod hook;
pub mod host;
pub mod install_shell;
pub mod primary;
pub mod serve;
pub mod session_active;
pub mod session_answer;
pub mod session_bind;
pub mod session_complete;
pub mod session_count;
pub mod session_diff;
pub mod session_list;
pub mod session_new;
pub mod session_next;
pub mod session_open;
pub mod session_pick;
pub mod session_ready;
pub mod session_rename;
pub mod session_restore;
pub mod session_send;
pub mod session_usage;
pub mod session_watch;
pub mod web;
pub mod work;

use crate::Tool;

fn named<T: Tool>() -> clap::Command {
    T::command().name(T::NAME)
}

pub(crate) fn all() -> Vec<clap::Command> {
    vec![
        named::<session_list::Cli>(),
        named::<session_active::Cli>(),
        named::<session_new::Cli>(),
        named::<session_ready::Cli>(),
        named::<session_rename::Cli>(),
        named::<session_complete::Cli>(),
        named::<session_send::Cli>(),
        named::<session_answer::Cli>(),
        named::<session_diff::Cli>(),
        named::<session_restore::Cli>(),
        named::<session_bind::Cli>(),
        named::<work::Cli>(),
        named::<host::Cli>(),
        named::<session_open::Cli>(),
        named::<session_count::Cli>(),
        named::<session_usage::Cli>(),
        named::<session_next::Cli>(),
        named::<session_watch::Cli>(),
        named::<session_pick::Cli>(),
        named::<serve::Cli>(),
        {
            use clap::CommandFactory;
            hook::Cli::command().name("lf-hook")
        },
        named::<primary::Cli>(),
        named::<flow::Cli>(),
        named::<handoff::Cli>(),
        named::<install_shell::Cli>(),
        {
            use clap::CommandFactory;
            web::Cli::command().name(web::Cli::NAME)
        },
    ]
}

/// `--provider`: any provider, or with `agents_only` an agent CLI alone
/// (a review or a primary Session needs a conversation of its own).
pub(crate) fn provider(
    agents_only: bool,
) -> impl clap::builder::TypedValueParser<Value = lf::provider::Provider> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    use lf::provider::Provider;
    let names: Vec<&'static str> = if agents_only {
        Provider::agent_names().collect()
    } else {
        Provider::NAMES.to_vec()
    };
    PossibleValuesParser::new(names).try_map(|name: String| Provider::parse(&name))
}

/// A `--grace` or `--timeout` value: seconds, as a duration.
pub(crate) fn seconds(
    arg: lf::Arg,
) -> impl Fn(&str) -> Result<std::time::Duration, lf::Error> + Clone {
    move |text| {
        let value = text
            .parse::<f64>()
            .map_err(|_| lf::error::InputError::BadSeconds {
                arg,
                max: lf::input::max_seconds(arg),
            })?;
        lf::input::seconds(arg, value)
    }
}
