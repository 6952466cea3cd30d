import DoseCore
import Testing

@Suite("E-mail addresses: checked, and compared in any case")
struct EmailAddressTests {
    static let acceptedRows: [(String, String)] = [
        ("alice@example.org", "alice@example.org"), ("  Alice@Example.ORG \n", "alice@example.org"),
        ("first.last+dosetap@sub.example.co.uk", "first.last+dosetap@sub.example.co.uk"), ("a_b%c-d@x-y.example", "a_b%c-d@x-y.example"),
        ("x@e.io", "x@e.io"), (String(repeating: "l", count: 64) + "@example.org", String(repeating: "l", count: 64) + "@example.org"),
    ]

    @Test("accepted and kept in lower case", arguments: acceptedRows)
    func accepted(raw: String, kept: String) throws {
        #expect(try EmailAddress(raw).text == kept)
    }

    static let refusedRows: [(String, String)] = [
        ("", "it is empty"), ("   ", "it is empty"), ("alice", "exactly one @"), ("a@@example.org", "exactly one @"),
        ("a@b@example.org", "exactly one @"), ("@example.org", "before the @"), ("a b@example.org", "before the @"),
        ("ålice@example.org", "before the @"), ("a\"b@example.org", "before the @"),
        (String(repeating: "l", count: 65) + "@example.org", "before the @"),
        (".alice@example.org", "starts or ends with a dot"), ("alice.@example.org", "starts or ends with a dot"),
        ("a..b@example.org", "two in a row"),
        ("alice@", "not a domain name"), ("alice@localhost", "not a domain name"), ("alice@example", "not a domain name"),
        ("alice@-x.org", "not a domain name"), ("alice@x-.org", "not a domain name"), ("alice@x..org", "not a domain name"),
        ("alice@example.123", "not a domain name"), ("alice@exa_mple.org", "not a domain name"), ("alice@[127.0.0.1]", "not a domain name"),
        ("alice@" + String(repeating: "d", count: 64) + ".org", "not a domain name"),
        ("a@" + String(repeating: "d.", count: 130) + "org", "longer than 254"),
    ]

    @Test("refused, naming what is wrong and what is allowed", arguments: refusedRows)
    func refused(raw: String, problem: String) {
        #expect {
            _ = try EmailAddress(raw, field: "email")
        } throws: { error in
            guard case .invalidInput(let field, let found, let allowed)? = error as? DoseError else { return false }
            return field == "email" && found.contains(problem) && allowed == EmailAddress.allowed
        }
    }

    @Test("two spellings of one address are one address")
    func sameAddress() throws {
        #expect(try EmailAddress("Bob@Example.org") == EmailAddress("bob@example.ORG"))
        #expect(try EmailAddress("bob@example.org") != EmailAddress("bob2@example.org"))
    }
}
