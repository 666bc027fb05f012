// The format name and version of every JSON report, defined once: each
// report carries it under "schema" (as certificates and the certify index
// do), docs/schemas/ requires it, docs/diagnostics.md lists it.
//
// A version counts the report's incompatible forms. /2: the report changed
// incompatibly once already, before it carried a version — certify, prove,
// validate and query replies when the solver's answer became `answer` in
// every obligation (it was `actual` / `result`), check-cert when its array
// became an object. /1: the unversioned form, unchanged (docs).
#pragma once

namespace fusecert::diag {

inline constexpr const char* kDocsReportFormat = "fusecert-docs-report/1";
inline constexpr const char* kCertifyReportFormat = "fusecert-certify-report/2";
inline constexpr const char* kCheckCertReportFormat = "fusecert-check-cert-report/2";
inline constexpr const char* kValidateReportFormat = "fusecert-validate-report/2";
inline constexpr const char* kProveReportFormat = "fusecert-prove-report/2";
inline constexpr const char* kQueryReplyFormat = "fusecert-query-reply/2";

/// `prove --certify`'s proposition certificates, under "schema" as every
/// other document. /4: every obligation's scope lists what it assumes
/// (`assumed`, issue #19), which /3 did not; versions 1 and 2 named the
/// version under "format" (and /1 the solver's answer `result`); check-cert
/// reads /4 only and names the version it found (cert.version, exit 2).
inline constexpr const char* kPropositionCertificateFormat = "fusecert-proposition-certificate/4";

}  // namespace fusecert::diag
