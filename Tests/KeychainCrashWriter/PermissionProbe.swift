import Foundation
import Security

/// `permission-probe`: one SecItem call of each kind on the default keychain, as a client whose
/// first call opens the keychain, printing each status: `find: <status> <secret or ->`, then
/// `add: <status>`, `update: <status>`, `delete: <status>` for an item of its own. The test
/// compares the statuses with the refusal it expects (or success once the files are private).
struct PermissionProbe {
    private let client = PasswordClient(service: "svc")

    init(_ arguments: HelperArguments) throws {}

    func run() {
        let (status, item) = client.read(account: "me")
        print("find: \(status) \(item.map { String(decoding: $0.secret, as: UTF8.self) } ?? "-")")
        print("add: \(client.add(account: "probe", label: "probe", secret: Data("probe".utf8)))")
        print("update: \(client.update(account: "probe", label: "probed", secret: Data("probed".utf8)))")
        print("delete: \(client.delete(account: "probe"))")
    }
}
