use epd_core::{verbs, ParseMode, Record, Severity};
use std::collections::BTreeMap;
fn main() {
    let dir = "/work/shared/corpora";
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".epd") || n.ends_with(".fen"))
        .collect();
    names.sort();
    for name in names {
        let data = std::fs::read(format!("{dir}/{name}")).unwrap();
        for mode in [ParseMode::Strict, ParseMode::Lenient] {
            let mut codes: BTreeMap<(String, &str), usize> = BTreeMap::new();
            let mut invalid = 0;
            let mut recs = 0;
            let mut example: BTreeMap<String, String> = BTreeMap::new();
            for line in data.split(|&b| b == b'\n') {
                if line.iter().all(|b| b.is_ascii_whitespace() || *b == 0) {
                    continue;
                }
                recs += 1;
                let (_r, d) = Record::parse(line, mode);
                if d.iter().any(|d| d.severity == Severity::Error) {
                    invalid += 1;
                }
                for x in &d {
                    let k = format!("{}{}", if x.severity == Severity::Error { "E" } else { "w" }, x.code);
                    *codes.entry((k.clone(), "")).or_default() += 1;
                    example.entry(k).or_insert_with(|| x.message.clone());
                }
            }
            let (out1, _) = verbs::normalize_str(&data, mode);
            let (out2, _) = verbs::normalize_str(&out1, mode);
            println!("{name} {mode:?}: {recs} records, {invalid} invalid, idempotent={}", out1 == out2);
            for ((k, _), n) in &codes {
                println!("    {k} x{n}: {}", example[k]);
            }
        }
    }
}
