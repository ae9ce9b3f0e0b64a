/// What a pinentry prompt shows: its title, description, prompt and button labels.
package struct PinentryRequest: Sendable, Equatable {
    /// The window title (`SETTITLE`).
    package var title: String
    /// The text above the field (`SETDESC`): the calling program and its reason.
    package var description: String
    /// The field's label (`SETPROMPT`).
    package var prompt: String
    /// The confirming button's label (`SETOK`).
    package var okLabel: String
    /// The cancelling button's label (`SETCANCEL`).
    package var cancelLabel: String

    /// A request for the keychain passcode on behalf of `caller` (a program name), showing the
    /// caller's `reason`; `cancelTitle` replaces "Cancel" when given.
    package static func passcode(reason: String, caller: String, cancelTitle: String? = nil) -> PinentryRequest {
        PinentryRequest(
            title: "Keychain passcode",
            description: "“\(caller)” asks for the keychain passcode:\n\(reason)",
            prompt: "Passcode:",
            okLabel: "Allow",
            cancelLabel: cancelTitle ?? "Cancel")
    }

    /// A request for an item's application password on behalf of `caller`, showing its `reason`.
    package static func applicationPassword(reason: String, caller: String, cancelTitle: String? = nil) -> PinentryRequest {
        PinentryRequest(
            title: "Application password",
            description: "“\(caller)” asks for an application password:\n\(reason)",
            prompt: "Password:",
            okLabel: "OK",
            cancelLabel: cancelTitle ?? "Cancel")
    }
}
