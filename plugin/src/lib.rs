//! The lf Nushell plugin: the same Sessions (and flow reviews and
//! handoffs) as the `lf-*` binaries, as typed tables. It is a thin shell over the `lf` library, like the
//! binaries: each command under `commands/` translates its arguments into
//! one library call and the result into Nushell values (`value`). It reads
//! the Home and the current directory from the engine, never from its own
//! process, which Nushell starts once and keeps.
//!
//! There is deliberately no bare `lf` command: that name belongs to a
//! popular terminal file manager.

mod commands;
mod demo;
mod value;

use nu_plugin::{Plugin, PluginCommand};

pub struct LfPlugin;

impl Plugin for LfPlugin {
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }

    fn commands(&self) -> Vec<Box<dyn PluginCommand<Plugin = Self>>> {
        vec![
            Box::new(commands::Sessions),
            Box::new(commands::SessionNew),
            Box::new(commands::SessionOpen),
            Box::new(commands::SessionReady),
            Box::new(commands::SessionComplete),
            Box::new(commands::SessionDiff),
            Box::new(commands::SessionRename),
            Box::new(commands::SessionSend),
            Box::new(commands::SessionAnswer),
            Box::new(commands::SessionBind),
            Box::new(commands::WorkWaveAdd),
            Box::new(commands::WorkWaveList),
            Box::new(commands::Count),
            Box::new(commands::Usage),
            Box::new(commands::Watch),
            Box::new(commands::WorkTaskAdd),
            Box::new(commands::WorkTaskList),
            Box::new(commands::WorkTaskFinish),
            Box::new(commands::FlowReview),
            Box::new(commands::FlowAdvance),
            Box::new(commands::FlowFinish),
            Box::new(commands::FlowWait),
            Box::new(commands::Handoffs),
            Box::new(commands::HandoffOpen),
            Box::new(commands::HandoffAttach),
            Box::new(commands::HandoffFinish),
            Box::new(commands::HandoffClaimWake),
            Box::new(commands::HandoffShow),
            Box::new(commands::Active),
        ]
    }
}
