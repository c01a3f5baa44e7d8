/// \file grading_parse.hpp
/// \brief Internal helpers shared by the grader's strict line parsers (records, calibrations,
///        thresholds): `key=value` fields, checked numbers, errors that name the line.
#pragma once

#include "grading.hpp"

#include <istream>
#include <map>
#include <set>
#include <string>

namespace wb::grade::detail {

/// Throws FormatError "<what> at line N: "<line>"".
[[noreturn]] void bad(const std::string& what, int line_no, const std::string& line);
/// Splits "k=v k=v msg=free text" into fields; "msg" takes the rest of the line.
std::map<std::string, std::string> fields(const std::string& rest, int line_no, const std::string& line);
/// A finite, non-negative number.
double number(const std::string& s, const std::string& key, int line_no, const std::string& line);
/// A non-negative 32-bit integer written in decimal digits only.
int integer(const std::string& s, const std::string& key, int line_no, const std::string& line);
/// The field `key`, or FormatError when it is missing.
const std::string& need(const std::map<std::string, std::string>& f, const std::string& key, int line_no,
                        const std::string& line);
/// FormatError when `f` has a key outside `allowed`.
void only(const std::map<std::string, std::string>& f, const std::set<std::string>& allowed, int line_no,
          const std::string& line);
/// std::getline without a trailing '\r'.
bool getline_clean(std::istream& is, std::string& line);

/// One meaningful line of a grader file: its number (1-based, counting every line read), its
/// text, and the text split at the first space into `kind` and `rest`.
struct Entry {
    int n = 0;
    std::string line, kind, rest;
};
/// Reads up to the next line that is neither empty nor a '#' comment; false at the end of input.
/// `e.n` keeps counting across calls, so error messages name the right line.
bool next_entry(std::istream& is, Entry& e);

/// next_entry for a record's body: the first entry must be its version line `<magic> 1`
/// (FormatError "not <what> (expected '<magic> 1')", or one naming an unsupported version), read
/// here and noted in `header`; any entry once the record is `complete` (after 'end') is a
/// FormatError. False at the end of input.
bool next_record_entry(std::istream& is, Entry& e, bool& header, bool complete, const std::string& magic,
                       const std::string& what);

/// The fields both records' `sanitize` lines share: tool (one of sanitizer_tools(), not in
/// `seen_tools` yet: it is added), result (pass, fail, error or notrun), findings, kernel, msg.
SanitizerResult sanitize_fields(const std::map<std::string, std::string>& f, std::set<std::string>& seen_tools,
                                int line_no, const std::string& line);

}  // namespace wb::grade::detail
