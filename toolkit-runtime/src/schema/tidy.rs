//! What schemars writes for documentation tools but a model or a provider only trips over.

use serde_json::{Map, Value};

use super::keywords::schema_types;

/// Removes what schemars adds for documentation tools but a model or provider only trips over:
/// `$schema`, `title`, and the non-standard numeric formats (`uint8`, `double`), whose meaning
/// the `minimum`/`maximum` keywords carry instead.
pub(crate) fn strip_noise(value: &mut Value) {
    match value {
        Value::Object(map) => {
            // `shift_remove` keeps the order of the remaining keys: the bytes a model sees
            // read in the order schemars wrote them.
            map.shift_remove("$schema");
            if matches!(map.get("title"), Some(Value::String(_))) {
                map.shift_remove("title");
            }
            if is_numeric(map) {
                replace_format_with_range(map);
            }
            for (key, child) in map.iter_mut() {
                // `properties` and `$defs` hold names, not schemas: a property named "title"
                // must survive.
                if key == "properties" || key == "$defs" || key == "patternProperties" {
                    if let Value::Object(children) = child {
                        children.values_mut().for_each(strip_noise);
                    }
                } else if key != "enum" && key != "const" && key != "default" && key != "examples" {
                    strip_noise(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_noise),
        _ => {}
    }
}

fn is_numeric(map: &Map<String, Value>) -> bool {
    schema_types(map)
        .iter()
        .any(|t| *t == "integer" || *t == "number")
}

/// Puts `minimum` and `maximum` where schemars wrote its `format`, so every integer type shows
/// its whole range (schemars states it only for the 8- and 16-bit types) and `f32` shows the
/// largest value it can hold instead of silently becoming infinity.
///
/// 128-bit integers get the range a JSON number can carry into them: serde_json reads an integer
/// beyond `i64`/`u64` as a float, which no integer type accepts.
fn replace_format_with_range(map: &mut Map<String, Value>) {
    let Some(Value::String(format)) = map.get("format") else {
        return;
    };
    let range: Option<(Value, Value)> = match format.as_str() {
        "int8" => Some((i8::MIN.into(), i8::MAX.into())),
        "int16" => Some((i16::MIN.into(), i16::MAX.into())),
        "int32" => Some((i32::MIN.into(), i32::MAX.into())),
        "int64" => Some((i64::MIN.into(), i64::MAX.into())),
        "int128" => Some((i64::MIN.into(), u64::MAX.into())),
        "int" => Some(((isize::MIN as i64).into(), (isize::MAX as i64).into())),
        "uint8" => Some((0.into(), u8::MAX.into())),
        "uint16" => Some((0.into(), u16::MAX.into())),
        "uint32" => Some((0.into(), u32::MAX.into())),
        "uint64" | "uint128" => Some((0.into(), u64::MAX.into())),
        "uint" => Some((0.into(), (usize::MAX as u64).into())),
        "float" => Some((f64::from(-f32::MAX).into(), f64::from(f32::MAX).into())),
        _ => None,
    };
    let Some((min, max)) = range else {
        map.shift_remove("format");
        return;
    };
    // A bound already written (`#[schemars(range(...))]`) is narrower than the type's: keep it.
    let minimum = map.get("minimum").cloned().unwrap_or(min);
    let maximum = map.get("maximum").cloned().unwrap_or(max);
    for (key, value) in std::mem::take(map) {
        match key.as_str() {
            "format" => {
                map.insert("minimum".into(), minimum.clone());
                map.insert("maximum".into(), maximum.clone());
            }
            "minimum" | "maximum" => {
                map.entry(key).or_insert(value);
            }
            _ => {
                map.insert(key, value);
            }
        }
    }
}
