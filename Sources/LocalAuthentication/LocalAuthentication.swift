// `import LocalAuthentication` makes the Security API visible too, as Apple's framework (whose
// headers import Security's `SecAccessControl`) does for Swift code.
@_exported import Security
