//! A scene's values by dotted key (`fluid.vorticity`, `emitter.0.temperature`,
//! `render.smoke_color`): what Python's `scene["fluid.vorticity"] = 2.0` and a wedge's
//! `--vary` read and change. A key is the path into the scene file's TOML with array indices
//! as numbers, so it means exactly what the scene file means. A change goes through the scene
//! reader and its validation, so a value is refused with the message a scene file holding it
//! gets, and the range table ([`crate::ranges`]) is the only place a limit is written.

use super::Scene;
use crate::ranges::{self, Param};
use std::fmt;
use toml::Value;

/// A key that cannot be read or a value that cannot be set.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyError {
    /// No such key in this scene; the closest keys it has.
    Unknown {
        /// The key asked for.
        key: String,
        /// Keys of the scene that look like it, closest first.
        close: Vec<String>,
    },
    /// A value of the wrong kind (a string where a number goes).
    Type(String),
    /// A value the scene refuses (out of range, not whole, inconsistent with the rest).
    Value(String),
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Unknown { key, close } if close.is_empty() => {
                write!(f, "no scene key {key:?}")
            }
            KeyError::Unknown { key, close } => {
                let list: Vec<String> = close.iter().map(|k| format!("{k:?}")).collect();
                write!(f, "no scene key {key:?}; did you mean {}?", list.join(", "))
            }
            KeyError::Type(m) | KeyError::Value(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for KeyError {}

/// A value written on a command line (`--set KEY=VALUE`, each of a wedge's `--vary` values):
/// what it means in a scene file (`2`, `1e-3`, `true`, `[0.5, 0.1, 0.5]`, `"text"`), or a
/// number TOML would not take as one (`.5`, `5.`, `007`), else the text itself, so that
/// `fluid.advection=maccormack` needs no quotes.
pub fn value_of_text(s: &str) -> Value {
    let s = s.trim();
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct One {
        v: Value,
    }
    if let Ok(one) = toml::from_str::<One>(&format!("v = {s}")) {
        return one.v;
    }
    if let Ok(i) = s.parse::<i64>() {
        return Value::Integer(i);
    }
    match s.parse::<f64>() {
        Ok(f) => Value::Float(f),
        Err(_) => Value::String(s.to_string()),
    }
}

/// Colours in `[render]`: three numbers, each in the range table's `color` range.
const COLORS: [&str; 5] = [
    "light_color",
    "smoke_color",
    "background_bottom",
    "background_top",
    "obstacle_color",
];

/// Keys of `[[obstacle]]` tables that are numbers or vectors of them.
const OBSTACLE_NUMBERS: [&str; 3] = ["center", "radius", "size"];

/// The range-table entry that `key`'s value (each component of a vector) is checked against,
/// where it has one.
pub fn param(key: &str) -> Option<&'static Param> {
    let parts: Vec<&str> = key.split('.').collect();
    let named = |list: &'static [Param], k: &str| list.iter().find(|p| p.key == k);
    match parts.as_slice() {
        ["fluid", k] => named(ranges::fluid::LIST, k),
        ["fire", k] => named(ranges::fire::LIST, k),
        ["detail", k] => named(ranges::detail::LIST, k),
        ["render", k] if COLORS.contains(k) => Some(&ranges::render::COLOR),
        ["render", "color"] => None,
        ["render", k] => named(ranges::render::LIST, k),
        ["grid", "size"] => Some(&ranges::scene::GRID_SIZE),
        ["camera", "pitch"] => Some(&ranges::scene::PITCH),
        ["camera", "distance"] => Some(&ranges::scene::DISTANCE),
        ["boundaries", _, "inflow"] => Some(&ranges::scene::INFLOW_SPEED),
        ["emitter" | "obstacle", i, "pulse", k] if i.parse::<usize>().is_ok() => {
            named(ranges::emitter::LIST, k).filter(|p| ["period", "duty"].contains(&p.key))
        }
        ["emitter", i, k] if i.parse::<usize>().is_ok() => {
            named(ranges::emitter::LIST, k).filter(|p| !["period", "duty"].contains(&p.key))
        }
        ["obstacle", i, k] if i.parse::<usize>().is_ok() && OBSTACLE_NUMBERS.contains(k) => {
            named(ranges::emitter::LIST, k)
        }
        _ => None,
    }
}

/// Every key of `scene` whose value is a number or a few of them: each range-table entry
/// under its table (`fluid.…`, `fire.…`, `render.…`, `detail.…`, `grid.size`, `camera.…`), and
/// per emitter and obstacle (`emitter.0.density`, `emitter.0.pulse.period`, …), set or not.
pub fn number_keys(scene: &Scene) -> Vec<String> {
    let mut keys = Vec::new();
    let table = |keys: &mut Vec<String>, section: &str, list: &[Param]| {
        for p in list {
            if !(section == "render" && p.key == "color") {
                keys.push(format!("{section}.{}", p.key));
            }
        }
    };
    table(&mut keys, "fluid", ranges::fluid::LIST);
    table(&mut keys, "fire", ranges::fire::LIST);
    table(&mut keys, "render", ranges::render::LIST);
    keys.extend(COLORS.iter().map(|c| format!("render.{c}")));
    table(&mut keys, "detail", ranges::detail::LIST);
    keys.extend(["grid.size", "camera.yaw", "camera.pitch", "camera.distance"].map(String::from));
    for i in 0..scene.emitters.len() {
        for p in ranges::emitter::LIST {
            match p.key {
                "period" | "duty" => keys.push(format!("emitter.{i}.pulse.{}", p.key)),
                k => keys.push(format!("emitter.{i}.{k}")),
            }
        }
    }
    for i in 0..scene.obstacles.len() {
        keys.extend(OBSTACLE_NUMBERS.iter().map(|k| format!("obstacle.{i}.{k}")));
    }
    keys
}

fn document(scene: &Scene) -> Result<Value, KeyError> {
    Value::try_from(scene).map_err(|e| KeyError::Value(format!("the scene as TOML: {e}")))
}

fn lookup<'a>(doc: &'a Value, key: &str) -> Option<&'a Value> {
    key.split('.').try_fold(doc, |v, seg| match v {
        Value::Table(t) => t.get(seg),
        Value::Array(a) => a.get(seg.parse::<usize>().ok()?),
        _ => None,
    })
}

/// Every key present in the scene's document, tables and arrays walked down to their values.
fn present_keys(doc: &Value) -> Vec<String> {
    fn walk(v: &Value, path: &str, out: &mut Vec<String>) {
        let join = |k: &str| match path.is_empty() {
            true => k.to_string(),
            false => format!("{path}.{k}"),
        };
        match v {
            Value::Table(t) => t.iter().for_each(|(k, v)| walk(v, &join(k), out)),
            Value::Array(a) if a.iter().any(|x| x.is_table()) => a
                .iter()
                .enumerate()
                .for_each(|(i, v)| walk(v, &join(&i.to_string()), out)),
            _ => out.push(path.to_string()),
        }
    }
    let mut out = Vec::new();
    walk(doc, "", &mut out);
    out
}

fn unknown(scene: &Scene, doc: &Value, key: &str) -> KeyError {
    let mut all = number_keys(scene);
    all.extend(present_keys(doc));
    all.sort();
    all.dedup();
    let leaf = key.rsplit('.').next().unwrap_or(key);
    let mut scored: Vec<(usize, String)> = all
        .into_iter()
        .map(|k| {
            let d = edit_distance(&k, key);
            // A key that ends the same way (`vorticity` for `fluid.vorticity`) is close.
            let same_leaf = k.rsplit('.').next() == Some(leaf);
            (if same_leaf { d.min(1) } else { d }, k)
        })
        .filter(|(d, k)| *d <= (k.len().max(key.len()) / 3).max(2))
        .collect();
    scored.sort();
    KeyError::Unknown {
        key: key.to_string(),
        close: scored.into_iter().take(4).map(|(_, k)| k).collect(),
    }
}

pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != *cb)).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

/// The value at `key`: `Ok(None)` where the key is one the scene may hold but leaves unset (an
/// emitter's `temperature`, a sphere's `size`).
pub fn get(scene: &Scene, key: &str) -> Result<Option<Value>, KeyError> {
    let doc = document(scene)?;
    if let Some(v) = lookup(&doc, key) {
        return Ok(Some(v.clone()));
    }
    match number_keys(scene).iter().any(|k| k == key) {
        true => Ok(None),
        false => Err(unknown(scene, &doc, key)),
    }
}

/// `scene` with `key` set to `value`, checked as the scene reader checks a file: a value
/// outside its range gets the message a scene file holding it gets; `scene` itself is not
/// changed. A key the scene does not hold yet is added (an emitter's `temperature`), where it
/// is one of [`number_keys`].
pub fn set(scene: &Scene, key: &str, value: Value) -> Result<Scene, KeyError> {
    let mut doc = document(scene)?;
    let known = lookup(&doc, key).is_some() || number_keys(scene).iter().any(|k| k == key);
    if !known {
        return Err(unknown(scene, &doc, key));
    }
    let value = match param(key) {
        Some(p) => number_value(key, p, value, lookup(&doc, key))?,
        None => value,
    };
    put(&mut doc, key, value)?;
    let changed: Scene = doc
        .try_into()
        .map_err(|e: toml::de::Error| KeyError::Value(format!("{key}: {}", e.message().trim())))?;
    changed
        .validate()
        .map_err(|e| KeyError::Value(e.message.clone()))?;
    Ok(changed)
}

/// Checks a number (or each number of a vector) for `p`'s kind: a whole number where the
/// entry takes whole numbers (stored as an integer), a vector as long as the one it replaces.
/// The range itself is left to the scene's validation, for its message.
fn number_value(key: &str, p: &Param, v: Value, old: Option<&Value>) -> Result<Value, KeyError> {
    let one = |v: &Value| -> Result<Value, KeyError> {
        let x = match v {
            Value::Integer(i) => *i as f64,
            Value::Float(f) => *f,
            other => {
                return Err(KeyError::Type(format!(
                    "{key} takes a number, not {}",
                    other.type_str()
                )))
            }
        };
        if !x.is_finite() {
            return Err(KeyError::Value(format!(
                "{key} = {x} is not a finite number"
            )));
        }
        match p.integer {
            true if x.fract() != 0.0 => Err(KeyError::Value(format!(
                "{key}: '{x}' is not a whole number"
            ))),
            true => Ok(Value::Integer(x as i64)),
            false => Ok(Value::Float(x)),
        }
    };
    let vector_len = match old {
        Some(Value::Array(a)) => Some(a.len()),
        Some(_) => None,
        // Unset: vectors where the scene file takes three numbers.
        None => {
            let leaf = key.rsplit('.').next().unwrap_or(key);
            ["center", "velocity", "size"].contains(&leaf).then_some(3)
        }
    };
    match (v, vector_len) {
        (Value::Array(a), Some(n)) if a.len() == n => {
            Ok(Value::Array(a.iter().map(one).collect::<Result<_, _>>()?))
        }
        (Value::Array(a), Some(n)) => Err(KeyError::Value(format!(
            "{key} takes {n} numbers, not {}",
            a.len()
        ))),
        // `size` of a box also takes one number (a cube) in a scene file.
        (v @ (Value::Integer(_) | Value::Float(_)), Some(3)) if key.ends_with(".size") => one(&v),
        (v, Some(n)) => Err(KeyError::Type(format!(
            "{key} takes {n} numbers, not {}",
            v.type_str()
        ))),
        (v, None) => one(&v),
    }
}

fn put(doc: &mut Value, key: &str, value: Value) -> Result<(), KeyError> {
    let segs: Vec<&str> = key.split('.').collect();
    let (last, path) = segs
        .split_last()
        .ok_or_else(|| KeyError::Type("empty key".into()))?;
    let mut v = doc;
    for seg in path {
        v = match v {
            Value::Table(t) => t
                .entry(seg.to_string())
                .or_insert_with(|| Value::Table(Default::default())),
            Value::Array(a) => seg
                .parse::<usize>()
                .ok()
                .and_then(|i| a.get_mut(i))
                .ok_or_else(|| KeyError::Value(format!("{key}: no item {seg}")))?,
            _ => return Err(KeyError::Value(format!("{key}: {seg} holds no keys"))),
        };
    }
    match v {
        Value::Table(t) => {
            t.insert(last.to_string(), value);
            Ok(())
        }
        Value::Array(a) => match last.parse::<usize>().ok().and_then(|i| a.get_mut(i)) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(KeyError::Value(format!("{key}: no item {last}"))),
        },
        _ => Err(KeyError::Value(format!("{key}: not a table"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sets_and_refuses_by_dotted_key() {
        let s = Scene::preset("campfire").expect("preset");
        assert_eq!(get(&s, "fluid.vorticity"), Ok(Some(Value::Float(6.0))));
        let t = set(&s, "fluid.vorticity", Value::Float(2.0)).expect("in range");
        assert_eq!(t.fluid.vorticity, 2.0);
        assert_eq!(s.fluid.vorticity, 6.0, "the original is untouched");
        let e = set(&s, "fluid.vorticity", Value::Float(200.0)).expect_err("out of range");
        assert_eq!(
            e.to_string(),
            "fluid: vorticity = 200 is outside the allowed range [0, 100]"
        );
        let t = set(&s, "emitter.0.temperature", Value::Integer(2)).expect("set");
        assert_eq!(t.emitters[0].temperature, Some(2.0));
        let e = set(&s, "fluid.max_substeps", Value::Float(2.5)).expect_err("whole");
        assert!(e.to_string().contains("not a whole number"), "{e}");
        match get(&s, "fluid.vorticty").expect_err("typo") {
            KeyError::Unknown { close, .. } => assert_eq!(close[0], "fluid.vorticity"),
            e => panic!("{e:?}"),
        }
        let e = set(&s, "fluid.vorticity", Value::String("x".into())).expect_err("type");
        assert!(matches!(e, KeyError::Type(_)), "{e:?}");
        for k in number_keys(&s) {
            get(&s, &k).unwrap_or_else(|e| panic!("{k}: {e}"));
        }
    }

    #[test]
    fn a_value_on_a_command_line_means_what_a_scene_file_means() {
        assert_eq!(value_of_text("2"), Value::Integer(2));
        assert_eq!(value_of_text(" 1e-3 "), Value::Float(1e-3));
        assert_eq!(value_of_text("true"), Value::Boolean(true));
        assert_eq!(
            value_of_text("[0.5, 0.2,0.5]"),
            Value::Array(vec![0.5.into(), 0.2.into(), 0.5.into()])
        );
        assert_eq!(value_of_text("\"a b\""), Value::String("a b".into()));
        // Numbers as Rust reads them where TOML would not (as a wedge's values always were).
        assert_eq!(value_of_text(".5"), Value::Float(0.5));
        assert_eq!(value_of_text("5."), Value::Float(5.0));
        assert_eq!(value_of_text("007"), Value::Integer(7));
        // Bare words are text; so is anything that would be more than one value.
        assert_eq!(
            value_of_text("maccormack"),
            Value::String("maccormack".into())
        );
        assert_eq!(
            value_of_text("1\nv2 = 3"),
            Value::String("1\nv2 = 3".into())
        );
        assert_eq!(value_of_text("1]"), Value::String("1]".into()));
    }
}
