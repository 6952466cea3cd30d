import DoseCore
import Testing

@Suite("the sign-up policy (serve --sign-up)")
struct SignUpPolicyTests {
    @Test(
        "each policy reads from its words and says whom it lets make an account",
        arguments: [
            ("closed", "a@example.org", false), ("invited", "a@example.org", true), ("Invited", "a@example.org", true),
            ("domain=clinic.example.org", "a@clinic.example.org", true), ("domain=clinic.example.org", "a@example.org", false),
            ("domain=clinic.example.org", "a@notclinic.example.org", false), ("domain=clinic.example.org", "a@sub.clinic.example.org", false),
        ])
    func policies(text: String, address: String, allowed: Bool) throws {
        let policy = try SignUpPolicy.parse(text)
        #expect(policy.allowsInvitee(try EmailAddress(address)) == allowed)
        #expect(try SignUpPolicy.parse(policy.description) == policy)
    }

    @Test("anything else is refused by name, with what is allowed", arguments: ["open", "", "domain=", "domain=not a domain", "domain=@x.org"])
    func refusals(text: String) {
        #expect {
            _ = try SignUpPolicy.parse(text)
        } throws: { error in
            "\(error)".contains("sign-up") && "\(error)".contains("domain=DOMAIN")
        }
    }
}
