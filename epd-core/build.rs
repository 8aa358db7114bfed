//! Generates the sliding-piece attack tables ("fancy" magic bitboards).
//!
//! The magic multipliers are searched for here, with a fixed-seed generator,
//! so the build is deterministic and downloads nothing. The result is written
//! to `$OUT_DIR/magics.rs` and included by `src/attacks.rs`.

use std::fmt::Write as _;
use std::{env, fs, path::PathBuf};

#[path = "src/rays.rs"]
mod rays;
use rays::{relevant_mask, slide, BISHOP_DIRS, ROOK_DIRS};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

/// Finds a magic for one square; returns (mask, magic, shift, table).
fn find_magic(sq: usize, dirs: &[(i32, i32); 4], rng: &mut Rng) -> (u64, u64, u32, Vec<u64>) {
    let mask = relevant_mask(sq, dirs);
    let bits = mask.count_ones();
    let shift = 64 - bits;
    let mut subsets = Vec::with_capacity(1 << bits);
    let mut sub = 0u64;
    loop {
        subsets.push((sub, slide(sq, sub, dirs)));
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            break;
        }
    }
    let mut table = vec![0u64; 1 << bits];
    let mut used = vec![false; 1 << bits];
    'search: loop {
        let magic = rng.sparse();
        if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
            continue;
        }
        used.iter_mut().for_each(|u| *u = false);
        for &(occ, att) in &subsets {
            let idx = (occ.wrapping_mul(magic) >> shift) as usize;
            if used[idx] {
                if table[idx] != att {
                    continue 'search;
                }
            } else {
                used[idx] = true;
                table[idx] = att;
            }
        }
        return (mask, magic, shift, table);
    }
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/rays.rs");
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let mut src = String::new();
    let mut table: Vec<u64> = Vec::new();
    for (name, dirs) in [("ROOK", &ROOK_DIRS), ("BISHOP", &BISHOP_DIRS)] {
        writeln!(src, "pub(crate) static {name}_MAGICS: [Magic; 64] = [").unwrap();
        for sq in 0..64 {
            let (mask, magic, shift, t) = find_magic(sq, dirs, &mut rng);
            writeln!(
                src,
                "    Magic {{ mask: {mask:#x}, magic: {magic:#x}, shift: {shift}, offset: {} }},",
                table.len()
            )
            .unwrap();
            table.extend_from_slice(&t);
        }
        writeln!(src, "];").unwrap();
    }
    writeln!(src, "pub(crate) static SLIDER_ATTACKS: [u64; {}] = [", table.len()).unwrap();
    for chunk in table.chunks(8) {
        src.push_str("   ");
        for v in chunk {
            write!(src, " {v:#x},").unwrap();
        }
        src.push('\n');
    }
    writeln!(src, "];").unwrap();
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap()).join("magics.rs");
    fs::write(out, src).unwrap();
}
