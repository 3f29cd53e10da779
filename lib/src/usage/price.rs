//! What tokens cost: the price table shipped in the repository
//! (`share/usage/prices.json`: per model and kind of token, each entry with
//! the day it was taken and its source), overridden entry by entry by the
//! person's own `$LF_HOME/prices.json`. A model the table does not list
//! has no cost: lf shows its tokens and "price unknown", never a guess.

use super::{Tokens, UsageError};
use crate::Result;
use crate::home::Home;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The table shipped with lf.
const SHIPPED: &str = include_str!("../../../share/usage/prices.json");

/// The prices of one model, in dollars per million tokens of each kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub model: String,
    pub input: f64,
    pub output: f64,
    pub cache_creation: f64,
    pub cache_read: f64,
    /// The day the prices were taken (`YYYY-MM-DD`).
    pub taken: String,
    /// Where they were taken from.
    pub source: String,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    #[allow(dead_code)]
    about: Option<String>,
    currency: String,
    per_tokens: u64,
    models: Vec<Price>,
}

/// Prices by model.
#[derive(Debug, Clone, Default)]
pub struct Prices {
    models: BTreeMap<String, Price>,
}

impl Prices {
    /// The shipped table, then the Home's own `prices.json` over it.
    pub fn load(home: &Home) -> Result<Prices> {
        let mut prices = Prices::default();
        prices.merge(SHIPPED, std::path::Path::new("share/usage/prices.json"))?;
        let path = home.root().join("prices.json");
        match std::fs::metadata(&path) {
            Ok(meta) => {
                use std::os::unix::fs::MetadataExt;
                let mode = meta.mode() & 0o777;
                if mode & 0o022 != 0 || meta.uid() != rustix::process::getuid().as_raw() {
                    return Err(UsageError::SharedPrices { path, mode }.into());
                }
                let text = std::fs::read_to_string(&path).map_err(|error| {
                    crate::Error::io(format!("cannot read {}", path.display()), error)
                })?;
                prices.merge(&text, &path)?;
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(crate::Error::io(
                    format!("cannot read {}", path.display()),
                    error,
                ));
            }
        }
        Ok(prices)
    }

    /// The shipped table alone.
    pub fn shipped() -> Prices {
        let mut prices = Prices::default();
        prices
            .merge(SHIPPED, std::path::Path::new("share/usage/prices.json"))
            .expect("the shipped price table reads");
        prices
    }

    fn merge(&mut self, text: &str, path: &std::path::Path) -> Result<()> {
        let bad = |problem: String| UsageError::BadPrices {
            path: path.to_owned(),
            problem,
        };
        let file: File = serde_json::from_str(text).map_err(|error| bad(error.to_string()))?;
        if file.currency != "USD" || file.per_tokens != 1_000_000 {
            return Err(bad("lf reads prices in USD per 1000000 tokens only".to_owned()).into());
        }
        for price in file.models {
            let kinds = [
                price.input,
                price.output,
                price.cache_creation,
                price.cache_read,
            ];
            if kinds.iter().any(|value| !value.is_finite() || *value < 0.0) {
                return Err(bad(format!(
                    "model {}: a price is negative or not a number",
                    price.model
                ))
                .into());
            }
            if price.model.is_empty() {
                return Err(bad("an entry has no model".to_owned()).into());
            }
            self.models.insert(price.model.clone(), price);
        }
        Ok(())
    }

    /// The price of a model: its own entry, or that of its name without a
    /// snapshot's date suffix (`claude-sonnet-4-5-20250929`).
    pub fn of(&self, model: &str) -> Option<&Price> {
        self.models.get(model).or_else(|| {
            let (name, date) = model.rsplit_once('-')?;
            (date.len() == 8 && date.bytes().all(|byte| byte.is_ascii_digit()))
                .then(|| self.models.get(name))
                .flatten()
        })
    }

    /// What these tokens of a model cost in dollars; `None` when its price
    /// is not known. Never negative: a count below zero counts as none
    /// (prices are refused below zero when the table is read).
    pub fn cost(&self, model: &str, tokens: &Tokens) -> Option<f64> {
        let price = self.of(model)?;
        let count = |tokens: i64| tokens.max(0) as f64;
        let dollars = count(tokens.input) * price.input
            + count(tokens.output) * price.output
            + count(tokens.cache_creation) * price.cache_creation
            + count(tokens.cache_read) * price.cache_read;
        Some((dollars / 1_000_000.0).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_prices_by_model_and_kind_and_knows_nothing_else() {
        let prices = Prices::shipped();
        let tokens = Tokens {
            input: 1_000_000,
            output: 2_000_000,
            cache_creation: 0,
            cache_read: 10_000_000,
        };
        let cost = prices.cost("claude-sonnet-4-5-20250929", &tokens).unwrap();
        assert!((cost - (3.0 + 30.0 + 3.0)).abs() < 1e-9, "{cost}");
        assert_eq!(prices.cost("claude-fake", &tokens), None);
        assert_eq!(prices.cost("claude-sonnet-4-5-2025", &tokens), None);
        for price in prices.models.values() {
            assert_eq!(price.taken.len(), 10, "{}", price.model);
            assert!(price.source.starts_with("https://"), "{}", price.model);
        }
    }

    #[test]
    fn a_homes_table_overrides_the_shipped_one_and_must_be_its_owners() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path().to_owned());
        let path = dir.path().join("prices.json");
        std::fs::write(
            &path,
            r#"{"currency":"USD","per_tokens":1000000,"models":[{"model":"claude-fake","input":1,"output":2,"cache_creation":3,"cache_read":4,"taken":"2026-12-02","source":"mine"}]}"#,
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let prices = Prices::load(&home).unwrap();
        let tokens = Tokens {
            input: 1_000_000,
            output: 1_000_000,
            cache_creation: 1_000_000,
            cache_read: 1_000_000,
        };
        assert_eq!(prices.cost("claude-fake", &tokens), Some(10.0));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(Prices::load(&home).unwrap_err().name(), "shared_prices");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::write(&path, "{}").unwrap();
        assert_eq!(Prices::load(&home).unwrap_err().name(), "bad_prices");
    }
}
