//! Cross-crate integration tests of EPD Kit (in `tests/`); what they share
//! is in `epd-testkit`. This library is empty.
