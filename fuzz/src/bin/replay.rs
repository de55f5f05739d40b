//! Replays files through a target without AFL: `replay <target|all> <file or folder>...`.
//! With `all`, each folder's name picks the target (`seeds/parse/...` goes to `parse`).
//! Prints how many inputs ran; on a broken invariant, the file it broke on, then the panic.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static CURRENT: Mutex<String> = Mutex::new(String::new());

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(name) = args.next() else {
        eprintln!("usage: replay <target|all> <file or folder>...");
        std::process::exit(2);
    };
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(current) = CURRENT.lock() {
            eprintln!("broken invariant on {current}");
        }
        default_hook(info);
    }));
    let mut ran = 0;
    for path in args {
        for file in files(Path::new(&path)) {
            let target_name = if name == "all" {
                folder_name(&file)
            } else {
                name.clone()
            };
            let Some(target) = toolkit_fuzz::targets::target(&target_name) else {
                eprintln!("no target {target_name:?} (for {})", file.display());
                std::process::exit(2);
            };
            let data =
                std::fs::read(&file).unwrap_or_else(|err| panic!("{}: {err}", file.display()));
            if let Ok(mut current) = CURRENT.lock() {
                *current = file.display().to_string();
            }
            target(&data);
            ran += 1;
        }
    }
    println!("replayed {ran} inputs");
}

/// The files at `path`: itself, or every file below it, in a stable order.
fn files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_owned()];
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(path)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    found.sort();
    found
        .iter()
        .flat_map(|p| files(p))
        .filter(|p| !is_hidden(p))
        .collect()
}

fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') || n == "README.txt")
}

fn folder_name(file: &Path) -> String {
    let folder = file
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str());
    folder.unwrap_or_default().to_owned()
}
