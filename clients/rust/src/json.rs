//! A small JSON reader for the credentials file (`{"address": ..., "admin_token": ...,
//! "projects": {...}}`), so that the library needs no JSON crate: the file is a few lines, read
//! once per client. It accepts any well-formed JSON document (RFC 8259) and refuses the rest; a
//! file it refuses is treated as absent, as Python's client treats one `json.loads` refuses.

/// A parsed JSON value. Numbers are kept as their text: the credentials file has none it reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Value>),
    /// Members in file order; a repeated name means its last value (as in Python's `json`).
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `name` of an object (its last occurrence), or None.
    pub(crate) fn get(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().rev().find(|(key, _)| key == name).map(|(_, value)| value),
            _ => None,
        }
    }

    /// The string this value is, or None.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            _ => None,
        }
    }
}

/// Deeper nesting than this is refused (the reader recurses; the file has two levels).
const MAX_DEPTH: usize = 64;

/// The value `text` holds, or None when it is not one well-formed JSON document.
pub(crate) fn parse(text: &str) -> Option<Value> {
    let mut reader = Reader { bytes: text.as_bytes(), at: 0 };
    let value = reader.value(0)?;
    reader.space();
    (reader.at == reader.bytes.len()).then_some(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Option<Value> {
        let end = self.at + word.len();
        (self.bytes.get(self.at..end)? == word.as_bytes()).then(|| {
            self.at = end;
            value
        })
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => self.string().map(Value::String),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        self.at += 1; // '{'
        let mut members = Vec::new();
        self.space();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(Value::Object(members));
        }
        loop {
            self.space();
            if self.peek()? != b'"' {
                return None;
            }
            let name = self.string()?;
            self.space();
            if self.bump()? != b':' {
                return None;
            }
            members.push((name, self.value(depth + 1)?));
            self.space();
            match self.bump()? {
                b',' => continue,
                b'}' => return Some(Value::Object(members)),
                _ => return None,
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        self.at += 1; // '['
        let mut items = Vec::new();
        self.space();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.space();
            match self.bump()? {
                b',' => continue,
                b']' => return Some(Value::Array(items)),
                _ => return None,
            }
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as text.
    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.bump()? {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.digit()?;
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.digit()?;
            self.digits();
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
        Some(Value::Number(text.to_owned()))
    }

    fn digit(&mut self) -> Option<()> {
        self.bump().filter(u8::is_ascii_digit).map(|_| ())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn string(&mut self) -> Option<String> {
        self.at += 1; // '"'
        let mut out = String::new();
        loop {
            // Copy the run up to the next quote, backslash or control character as it is (UTF-8).
            let start = self.at;
            while matches!(self.peek(), Some(byte) if byte != b'"' && byte != b'\\' && byte >= 0x20) {
                self.at += 1;
            }
            out.push_str(std::str::from_utf8(&self.bytes[start..self.at]).ok()?);
            match self.bump()? {
                b'"' => return Some(out),
                b'\\' => out.push(self.escape()?),
                _ => return None, // an unescaped control character
            }
        }
    }

    fn escape(&mut self) -> Option<char> {
        Some(match self.bump()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = self.hex4()?;
                if (0xD800..0xDC00).contains(&first) {
                    // A high surrogate: its low half must follow as another \u escape.
                    if self.bump()? != b'\\' || self.bump()? != b'u' {
                        return None;
                    }
                    let second = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&second) {
                        return None;
                    }
                    char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))?
                } else {
                    char::from_u32(first)? // a lone low surrogate is refused here
                }
            }
            _ => return None,
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.at..self.at + 4)?;
        let value = u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return None; // from_str_radix takes a leading '+'
        }
        self.at += 4;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::{Value, parse};

    #[test]
    fn reads_a_credentials_file() {
        let text = r#" {"address": "127.0.0.1:7331", "admin_token": "adm",
            "projects": {"default": "tok", "other": "t\u00e9\"2"}, "port": -1.5e3, "x": [true, null] } "#;
        let value = parse(text).expect("valid");
        assert_eq!(value.get("address").and_then(Value::as_str), Some("127.0.0.1:7331"));
        let projects = value.get("projects").expect("projects");
        assert_eq!(projects.get("default").and_then(Value::as_str), Some("tok"));
        assert_eq!(projects.get("other").and_then(Value::as_str), Some("té\"2"));
        assert_eq!(value.get("port"), Some(&Value::Number("-1.5e3".into())));
        assert_eq!(value.get("x"), Some(&Value::Array(vec![Value::Bool(true), Value::Null])));
    }

    #[test]
    fn the_last_of_a_repeated_name_wins_and_surrogates_pair() {
        let value = parse(r#"{"a": "1", "a": "\ud83d\ude00"}"#).expect("valid");
        assert_eq!(value.get("a").and_then(Value::as_str), Some("😀"));
    }

    #[test]
    fn refuses_what_is_not_json() {
        for text in [
            "", "{", "{\"a\": }", "{\"a\": 1,}", "[1 2]", "{\"a\": \"\n\"}", "01", "1.", "\"\\ud800\"",
            "{} x", "{'a': 1}", "\"\\u+123\"", "\u{feff}{}",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
        assert_eq!(parse(&"[".repeat(100)), None);
    }
}
