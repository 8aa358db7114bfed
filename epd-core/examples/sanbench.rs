use epd_core::{Position, SanMode};
fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let mut x = 88172645463325252u64;
    let mut data: Vec<(Position, Vec<Vec<u8>>)> = Vec::new();
    for _ in 0..200 {
        let mut pos = Position::startpos();
        for _ in 0..80 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            data.push((pos, moves.iter().map(|&m| pos.san(m).into_bytes()).collect()));
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            pos = pos.played(moves[(x % moves.len() as u64) as usize]);
        }
    }
    let mut n = 0u64;
    for (pos, sans) in &data {
        for s in sans {
            match mode.as_str() {
                "strict" => {
                    if pos.parse_san(s, SanMode::Strict).is_ok() {
                        n += 1
                    }
                }
                "lenient" => {
                    if pos.parse_san(s, SanMode::Lenient).is_ok() {
                        n += 1
                    }
                }
                _ => n += s.len() as u64,
            }
        }
    }
    println!("{n}");
}
