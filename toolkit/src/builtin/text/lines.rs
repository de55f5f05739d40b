//! Lines in and out: how the tools print lines, and how a numeric sort reads a line's number.

/// The lines of a text, each without its line ending: `\n`, `\r\n`, and any `\r` left before
/// them. A line the tools print ends in `\n`, so a `\r` kept at its end would make `"a\r"`
/// print as the CRLF line `"a"`, which reads as a line it is not (found by the `text` fuzz
/// target: `unique_lines` answered `"33"` twice for `"33\n33\r"`).
pub(super) fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|line| line.trim_end_matches('\r'))
}

/// Every line followed by `\n`, as grep, sort and uniq print them.
pub(super) fn join_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The number a line starts with (after leading whitespace), as `sort -n` and Ruby's `to_f`
/// read it: an optional sign, digits with an optional fraction, an optional exponent.
pub(super) fn leading_number(line: &str) -> Option<f64> {
    let s = line.trim_start();
    let bytes = s.as_bytes();
    let digits_from = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut end = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let int_end = digits_from(end);
    let mut digits = int_end - end;
    end = int_end;
    if bytes.get(end) == Some(&b'.') {
        let frac_end = digits_from(end + 1);
        if frac_end > end + 1 || digits > 0 {
            digits += frac_end - (end + 1);
            end = frac_end;
        }
    }
    if digits == 0 {
        return None;
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
        let exp_end = digits_from(end + 1 + sign);
        if exp_end > end + 1 + sign {
            end = exp_end;
        }
    }
    s[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::leading_number;

    #[test]
    fn leading_numbers_are_read_like_sort_n() {
        assert_eq!(leading_number("10 apples"), Some(10.0));
        assert_eq!(leading_number("  -2.5x"), Some(-2.5));
        assert_eq!(leading_number("+3"), Some(3.0));
        assert_eq!(leading_number(".5"), Some(0.5));
        assert_eq!(leading_number("5."), Some(5.0));
        assert_eq!(leading_number("1e3 things"), Some(1000.0));
        assert_eq!(leading_number("2e"), Some(2.0));
        assert_eq!(leading_number("apples 10"), None);
        assert_eq!(leading_number("-"), None);
        assert_eq!(leading_number("."), None);
        assert_eq!(leading_number(""), None);
    }
}
