//! "Did you mean": the known name closest to one a model got wrong.

/// Names longer than this get no suggestion: no parameter is named so, and comparing costs the
/// product of the lengths.
const LONGEST_SUGGESTED: usize = 128;

/// The known name closest to `name`, if it is close enough to be a likely typo.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    if name.len() > LONGEST_SUGGESTED {
        return None;
    }
    let lowered = name.to_lowercase();
    candidates
        .map(|candidate| {
            (
                edit_distance(&lowered, &candidate.to_lowercase()),
                candidate,
            )
        })
        .filter(|(distance, candidate)| *distance <= (candidate.len().max(name.len()) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Like [`closest`], but also matches names that differ only in case style
/// (`full_name`, `FullName`, `full-name` for `fullName`).
pub(crate) fn closest_key<'a>(name: &str, sent: &[&'a str]) -> Option<&'a str> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = squash(name);
    sent.iter()
        .copied()
        .find(|key| *key != name && squash(key) == wanted)
        .or_else(|| closest(name, sent.iter().copied().filter(|key| *key != name)))
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_and_far_ones_are_not() {
        assert_eq!(closest("txt", ["text", "limit"].into_iter()), Some("text"));
        assert_eq!(closest("Text", ["text"].into_iter()), Some("text"));
        assert_eq!(closest("zebra", ["text", "limit"].into_iter()), None);
    }
}
