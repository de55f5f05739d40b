//! The typed fast path: a `#[tool]` method's arguments read straight from the call's JSON text
//! (or borrowed `Value`) into the parameters' own types, with no `Value` built and no schema
//! walk, when the schema says nothing the types do not already enforce (see
//! `schema::implied_by_types`).
//!
//! The fast path only ever accepts: any input it cannot read as the types (a missing or unknown
//! argument, a duplicated key, a wrong type, `"21"` for an integer) falls back to the full
//! pipeline, which decides and words the error exactly as it always has. So the set of accepted
//! inputs, and every error message, are those of the full pipeline.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::arguments::Arguments;
use super::handler::TypedInput;
use crate::error::ArgumentProblem;
use crate::schema::ParamSpec;

/// One parameter's value: absent, or present (possibly `null`). Generated code turns it into the
/// parameter the way `Arguments::take*` would, or gives up (`None`) where only the full pipeline
/// can word the error.
#[doc(hidden)]
#[derive(Debug, Default)]
pub enum Field<T> {
    #[default]
    Absent,
    Present(T),
}

impl<T> Field<T> {
    /// The value of a parameter that must be sent.
    pub fn required(self) -> Option<T> {
        match self {
            Field::Present(value) => Some(value),
            Field::Absent => None,
        }
    }

    /// The value, or `default()` when the model left it out.
    pub fn or_else(self, default: impl FnOnce() -> T) -> T {
        match self {
            Field::Present(value) => value,
            Field::Absent => default(),
        }
    }
}

impl<T> From<Option<T>> for Field<T> {
    /// A parameter's value, `None` when it was not sent.
    fn from(sent: Option<T>) -> Self {
        match sent {
            Some(value) => Field::Present(value),
            None => Field::Absent,
        }
    }
}

impl<T> Field<Option<T>> {
    /// An `Option` parameter: absent and `null` are both `None`.
    pub fn optional(self) -> Option<T> {
        match self {
            Field::Present(value) => value,
            Field::Absent => None,
        }
    }
}

/// The parameters of one tool, as a tuple of [`Field`]s in declaration order.
#[doc(hidden)]
pub trait FieldSet: Sized {
    /// Reads the arguments, or `None` when they are not exactly an object of the named
    /// parameters in their types.
    fn parse(input: TypedInput<'_>, names: &[&str]) -> Option<Self>;

    /// Takes validated arguments, one parameter after another in declaration order, as
    /// [`Arguments::take`] and its kin do: a value sent is read (or its problem named), a
    /// required parameter not sent is missing, any other is left absent for the tool's own
    /// rule (its default, or `None`).
    fn take(arguments: &mut Arguments, params: &[ParamSpec]) -> Result<Self, ArgumentProblem>;
}

/// The reader of a tool's parameters, if every parameter type can be read.
#[doc(hidden)]
pub type ParseFields<S> = fn(TypedInput<'_>, &[&str]) -> Option<S>;

/// Both ways to a tool's parameters: from the call's JSON on the fast path, and from validated
/// [`Arguments`] on the full pipeline. One body per tool then serves both.
#[doc(hidden)]
pub struct FieldReaders<S> {
    pub parse: ParseFields<S>,
    pub take: fn(&mut Arguments, &[ParamSpec]) -> Result<S, ArgumentProblem>,
}

impl<S> Clone for FieldReaders<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for FieldReaders<S> {}

/// `(&&FieldsProbe::<S>::new()).parser()` (or `.readers()`) is `Some` when `S` is a
/// [`FieldSet`] (every parameter type is `DeserializeOwned`), `None` otherwise: a type that
/// cannot be read is reported once, by its `param_schema` (whose `ToolArgument` bound implies
/// `Deserialize`), and never a second time here.
#[doc(hidden)]
pub struct FieldsProbe<S>(PhantomData<S>);

impl<S> FieldsProbe<S> {
    pub const fn new() -> Self {
        FieldsProbe(PhantomData)
    }
}

impl<S> Default for FieldsProbe<S> {
    fn default() -> Self {
        Self::new()
    }
}

#[doc(hidden)]
pub trait HasFields<S> {
    fn parser(&self) -> Option<ParseFields<S>>;
    fn readers(&self) -> Option<FieldReaders<S>>;
}

impl<S: FieldSet> HasFields<S> for &FieldsProbe<S> {
    fn parser(&self) -> Option<ParseFields<S>> {
        Some(S::parse)
    }
    fn readers(&self) -> Option<FieldReaders<S>> {
        Some(FieldReaders {
            parse: S::parse,
            take: S::take,
        })
    }
}

#[doc(hidden)]
pub trait NoFields<S> {
    fn parser(&self) -> Option<ParseFields<S>>;
    fn readers(&self) -> Option<FieldReaders<S>>;
}

impl<S> NoFields<S> for FieldsProbe<S> {
    fn parser(&self) -> Option<ParseFields<S>> {
        None
    }
    fn readers(&self) -> Option<FieldReaders<S>> {
        None
    }
}

/// Reads `S` from the input through `seed`; any error (including trailing text) is `None`.
fn read<S>(
    input: TypedInput<'_>,
    seed: impl for<'de> DeserializeSeed<'de, Value = S>,
) -> Option<S> {
    match input {
        TypedInput::Text(text) => {
            let mut reader = serde_json::Deserializer::from_str(text);
            let fields = seed.deserialize(&mut reader).ok()?;
            reader.end().ok()?;
            Some(fields)
        }
        TypedInput::Value(value) => seed.deserialize(value).ok(),
    }
}

/// The seed and visitor of a tuple of fields: a JSON object whose keys are among `names`, each
/// at most once.
struct Fields<'n, S> {
    names: &'n [&'n str],
    fields: PhantomData<S>,
}

/// One slot of the tuple being filled: which parameter a key names.
fn slot(names: &[&str], key: &str) -> Option<usize> {
    names.iter().position(|name| *name == key)
}

/// Why reading stopped; never shown (the full pipeline words the error), so one will do.
fn not_fast<E: de::Error>() -> E {
    E::custom("not the fast path")
}

/// A map key, borrowed from the text when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an argument name")
            }
            fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
                Ok(Key(key.into()))
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
                Ok(Key(key.to_owned().into()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

macro_rules! field_set {
    ($($ty:ident $index:tt),*) => {
        impl<$($ty: DeserializeOwned),*> FieldSet for ($(Field<$ty>,)*) {
            fn parse(input: TypedInput<'_>, names: &[&str]) -> Option<Self> {
                read(input, Fields::<Self> { names, fields: PhantomData })
            }

            #[allow(unused_variables)]
            fn take(arguments: &mut Arguments, params: &[ParamSpec]) -> Result<Self, ArgumentProblem> {
                Ok(($(Field::from(arguments.take_param::<$ty>(&params[$index])?),)*))
            }
        }

        impl<'de, $($ty: DeserializeOwned),*> DeserializeSeed<'de> for Fields<'_, ($(Field<$ty>,)*)> {
            type Value = ($(Field<$ty>,)*);
            fn deserialize<De: Deserializer<'de>>(self, deserializer: De) -> Result<Self::Value, De::Error> {
                deserializer.deserialize_map(self)
            }
        }

        impl<'de, $($ty: DeserializeOwned),*> Visitor<'de> for Fields<'_, ($(Field<$ty>,)*)> {
            type Value = ($(Field<$ty>,)*);
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of arguments")
            }
            #[allow(unused_mut, unused_variables)]
            fn visit_map<Map: MapAccess<'de>>(self, mut map: Map) -> Result<Self::Value, Map::Error> {
                let mut fields: Self::Value = Default::default();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    match slot(self.names, &key.0) {
                        $(Some($index) => {
                            if matches!(fields.$index, Field::Present(_)) {
                                return Err(not_fast());
                            }
                            fields.$index = Field::Present(map.next_value::<$ty>()?);
                        })*
                        _ => return Err(not_fast()),
                    }
                }
                Ok(fields)
            }
        }
    };
}

field_set!();
field_set!(A 0);
field_set!(A 0, B 1);
field_set!(A 0, B 1, C 2);
field_set!(A 0, B 1, C 2, D 3);
field_set!(A 0, B 1, C 2, D 3, E 4);
field_set!(A 0, B 1, C 2, D 3, E 4, F 5);
field_set!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
field_set!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
field_set!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
field_set!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
field_set!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
field_set!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    type Two = (Field<String>, Field<Option<u8>>);
    const NAMES: &[&str] = &["text", "n"];

    #[test]
    fn an_object_of_the_named_parameters_is_read_in_their_types() {
        let (text, n) = Two::parse(TypedInput::Text(r#"{"n": 7, "text": "hi"}"#), NAMES).unwrap();
        assert_eq!(
            (text.required(), n.optional()),
            (Some("hi".to_owned()), Some(7))
        );
        let value = json!({"text": "hi", "n": null});
        let (text, n) = Two::parse(TypedInput::Value(&value), NAMES).unwrap();
        assert_eq!(
            (text.required(), n.optional()),
            (Some("hi".to_owned()), None)
        );
    }

    #[test]
    fn anything_else_leaves_the_fast_path() {
        for text in [
            r#"{"text": "hi", "text": "again"}"#,
            r#"{"text": "hi", "other": 1}"#,
            r#"{"text": 5}"#,
            r#"{"text": "hi", "n": 300}"#,
            r#"{"text": "hi", "n": 5.0}"#,
            r#"{"text": "hi"} x"#,
            r#"["hi"]"#,
            "null",
            "",
        ] {
            assert!(
                Two::parse(TypedInput::Text(text), NAMES).is_none(),
                "{text}"
            );
        }
    }

    fn spec(name: &'static str, required: bool) -> ParamSpec {
        ParamSpec {
            name,
            description: None,
            schema: crate::schema::build::param_schema::<u8>,
            required,
            default: None,
            header: None,
        }
    }

    #[test]
    fn validated_arguments_are_taken_as_the_take_calls_took_them() {
        type Three = (Field<String>, Field<Option<u8>>, Field<u8>);
        let params = [spec("text", true), spec("n", false), spec("k", false)];
        let take = |value: serde_json::Value| {
            let mut arguments = Arguments::new(value.as_object().unwrap().clone());
            Three::take(&mut arguments, &params)
        };
        // Sent, and read; a whole float reads as the integer it is.
        let (text, n, k) = take(json!({"text": "hi", "n": 7, "k": 3.0})).unwrap();
        assert_eq!(
            (text.required(), n.optional(), k.or_else(|| 0)),
            (Some("hi".to_owned()), Some(7), 3)
        );
        // Not sent: missing when required, else left to the tool's own rule.
        let (_, n, k) = take(json!({"text": "hi"})).unwrap();
        assert!(matches!((n, k), (Field::Absent, Field::Absent)));
        assert_eq!(
            take(json!({"n": 7})).unwrap_err(),
            ArgumentProblem::Missing {
                name: "text".into()
            }
        );
        // A value serde refuses is named by its parameter, in declaration order.
        match take(json!({"text": "hi", "n": 300, "k": "x"})).unwrap_err() {
            ArgumentProblem::Invalid { path, .. } => assert_eq!(path, "n"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_absent_parameter_is_told_apart_from_null() {
        let (text, n) = Two::parse(TypedInput::Text("{}"), NAMES).unwrap();
        assert!(matches!((text, n), (Field::Absent, Field::Absent)));
        let (_, n) = Two::parse(TypedInput::Text(r#"{"n": null}"#), NAMES).unwrap();
        assert!(matches!(n, Field::Present(None)));
    }
}
