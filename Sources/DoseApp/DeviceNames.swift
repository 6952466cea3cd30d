/// A paired browser's default name, from its user agent: "Chrome on Android", "Safari on iPhone".
public enum DeviceNames {
    /// The browser and system a user agent names, or "Browser" when it names neither.
    public static func fromUserAgent(_ agent: String) -> String {
        // Order matters: Edge and Chrome on iOS also say "Safari", Chrome also says "Safari", Android also says "Linux".
        let browsers: [(String, String)] = [
            ("Edg/", "Edge"), ("EdgiOS", "Edge"), ("Firefox/", "Firefox"), ("FxiOS", "Firefox"), ("CriOS", "Chrome"),
            ("SamsungBrowser", "Samsung Internet"), ("Chrome/", "Chrome"), ("Chromium/", "Chromium"), ("Safari/", "Safari"),
        ]
        let systems: [(String, String)] = [
            ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Mac OS X", "Mac"), ("Macintosh", "Mac"),
            ("Windows", "Windows"), ("CrOS", "ChromeOS"), ("Linux", "Linux"),
        ]
        let browser = browsers.first { agent.contains($0.0) }?.1
        let system = systems.first { agent.contains($0.0) }?.1
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return "Browser on \(system)"
        case (nil, nil): return "Browser"
        }
    }
}
