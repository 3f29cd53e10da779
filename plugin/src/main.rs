//! `nu_plugin_lf`: started by Nushell (`plugin add`, then `plugin use lf`),
//! never by a person.

fn main() {
    nu_plugin::serve_plugin(&nu_plugin_lf::LfPlugin, nu_plugin::MsgPackSerializer);
}
