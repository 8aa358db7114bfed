//! docs/argus.md's table of what one client may cost states the
//! constants' values: the table cannot drift from the code.

use epd_referee::director::{
    CONNECTION_NOTES, CONNECTION_NOTE_REFILL, FAULT_BURST, FAULT_REFILL, LOG_ECHO, LOST_HOST_WINDOW, MAX_UNSIGNED,
    MAX_UNSIGNED_PER_ADDRESS, SIGN_ON_TIMEOUT, UNSIGNED_GRACE,
};
use epd_referee::protocol::MAX_RECORD;
use epd_referee::runtime::{DEAD_LINK, LINE_TIMEOUT, MAX_CLIENTS};

#[test]
fn the_limits_table_states_the_constants() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/argus.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let row = |constant: &str| -> String {
        let needle = format!("| `{constant}` |");
        let line = doc.lines().find(|l| l.contains(&needle)).unwrap_or_else(|| panic!("no row for {constant}"));
        line.split('|').nth(2).unwrap().trim().to_owned()
    };
    for (constant, value) in [
        ("runtime::MAX_CLIENTS", MAX_CLIENTS.to_string()),
        ("director::SIGN_ON_TIMEOUT", format!("{} s", SIGN_ON_TIMEOUT.as_secs())),
        ("protocol::MAX_RECORD", format!("{MAX_RECORD} bytes")),
        ("runtime::LINE_TIMEOUT", format!("{} s", LINE_TIMEOUT.as_secs())),
        ("runtime::DEAD_LINK", format!("{} s", DEAD_LINK.as_secs())),
        ("director::LOST_HOST_WINDOW", format!("{} s", LOST_HOST_WINDOW.as_secs())),
        ("director::FAULT_BURST", FAULT_BURST.to_string()),
        ("director::FAULT_REFILL", format!("one per {} ms", FAULT_REFILL.as_millis())),
        ("director::LOG_ECHO", format!("{LOG_ECHO} bytes")),
        ("director::UNSIGNED_GRACE", format!("{} s", UNSIGNED_GRACE.as_secs())),
        ("director::MAX_UNSIGNED_PER_ADDRESS", MAX_UNSIGNED_PER_ADDRESS.to_string()),
        ("director::MAX_UNSIGNED", MAX_UNSIGNED.to_string()),
        ("director::CONNECTION_NOTES", CONNECTION_NOTES.to_string()),
        ("director::CONNECTION_NOTE_REFILL", format!("one per {} ms", CONNECTION_NOTE_REFILL.as_millis())),
    ] {
        assert_eq!(row(constant), value, "{constant} in {}", path.display());
    }
    // A flag's verdict waits long enough for the runtime to close a dead
    // host's connection.
    assert!(LOST_HOST_WINDOW > DEAD_LINK);
}
