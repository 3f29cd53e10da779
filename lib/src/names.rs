//! Enums as text. Each variant's name is derived once, by strum, from its
//! identifier in snake_case; the wire (serde), the store (SQL) and the
//! command lines (clap, the plugin's completions) all use that one name.
//! Text read back that names no variant is an error saying which type and
//! which text, never a silent default.

/// Define an enum whose variants have text: the enum (with strum's
/// derives, names in snake_case) and its `as_str`, `ALL`, `NAMES`, `parse`
/// (a usage error listing the choices, about the argument `$arg` when a
/// person types it), serde, and rusqlite.
///
/// ```text
/// named! {
///     "Session kind", Some(Arg::Kind);
///     /// A Session's kind.
///     pub enum SessionKind { Conversation, Flow }
/// }
/// ```
macro_rules! named {
    (
        $what:literal $(, $arg:expr)?;
        $(#[$meta:meta])*
        pub enum $ty:ident { $($(#[$variant_meta:meta])* $variant:ident),* $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash,
            strum::IntoStaticStr, strum::EnumString, strum::VariantArray, strum::VariantNames,
        )]
        #[strum(serialize_all = "snake_case")]
        pub enum $ty { $($(#[$variant_meta])* $variant),* }

        impl $ty {
            pub const ALL: &'static [Self] = <Self as strum::VariantArray>::VARIANTS;
            pub const NAMES: &'static [&'static str] = <Self as strum::VariantNames>::VARIANTS;

            pub fn as_str(self) -> &'static str {
                self.into()
            }

            /// The variant a person or a program named.
            pub fn parse(text: &str) -> $crate::Result<Self> {
                text.parse().map_err(|_| $crate::input::InputError::UnknownName {
                    arg: $crate::names::named!(@arg $($arg)?),
                    what: $what,
                    text: text.to_owned(),
                    choices: Self::NAMES,
                }.into())
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse()
                    .map_err(|_| serde::de::Error::unknown_variant(&text, Self::NAMES))
            }
        }

        impl rusqlite::ToSql for $ty {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(self.as_str().into())
            }
        }

        impl rusqlite::types::FromSql for $ty {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                let text = value.as_str()?;
                text.parse().map_err(|_| {
                    rusqlite::types::FromSqlError::Other(
                        format!("the database holds {text:?}, which is no {}", $what).into(),
                    )
                })
            }
        }
    };
    (@arg) => { None };
    (@arg $arg:expr) => { $arg };
}

pub(crate) use named;
