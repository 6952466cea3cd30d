import DoseCore
import Foundation

extension DataTransfer {
    /// The per-night analytics file (seed 003 "Export System", `sessions.csv`): one row per night, oldest first, with
    /// the figures insights use, so a spreadsheet reproduces them.
    public static let sessionsCSVColumns =
        [
            "session_date", "session_id", "time_zone", "dose1_local", "dose2_local", "interval_minutes", "target_minutes", "timing", "on_target",
            "inside_window", "natural_wake", "snoozes", "extra_doses", "logged_awakenings", "waso_estimate_minutes", "sleep_quality",
            "wellness_score", "other_medications",
        ] + sleepColumns

    /// The wearable's figures of the night, empty where no wearable was imported or the source does not tell them.
    public static let sleepColumns = [
        "sleep_source", "sleep_onset_local", "final_wake_local", "minutes_asleep", "waso_minutes", "wake_count", "deep_minutes", "rem_minutes",
        "light_minutes", "awake_minutes", "stage_at_dose2", "minutes_from_deep_to_dose2", "recovery_percent", "resting_heart_rate", "hrv_ms",
    ]

    /// What each analytics column means, for the bundle's readme.
    static let sessionsCSVMeanings: [String: String] = [
        "dose1_local": "Dose 1, local time where it was logged (HH:mm)", "dose2_local": "Dose 2, local time where it was logged (HH:mm)",
        "target_minutes": "the target interval the timing is judged against",
        "timing":
            "on_target (within ±10 min of the target), in_window (the rest of \(RegimenWords.minutes(.label)) min), early "
            + "(\(RegimenWords.early(.label))), late (\(RegimenWords.late(.label))), skipped, slept_through, ended_without_dose2 (the night was ended with "
            + "Dose 2 neither taken nor skipped: a missed Dose 2) or undecided (still open); one_dose for a once-nightly night",
        "on_target": "true when Dose 2 is inside the window and |interval − target| ≤ 10 min",
        "inside_window": "true when Dose 2 came inside its night's window (\(RegimenWords.minutes(.label)) min after Dose 1, end excluded)",
        "natural_wake": "true when Dose 2 came inside the window before the wake alarm, with no snooze (an early Dose 2 never is)",
        "logged_awakenings": "bathroom, water, snack, brief wake logged after Dose 1",
        "waso_estimate_minutes": "an estimate: 5 minutes per logged awakening",
        "other_medications": "other medications logged that night, ; separated",
        "sleep_source": "the wearable that told the night's sleep (by the sleep-source priority)",
        "sleep_onset_local": "falling asleep, local time of the night's zone (HH:mm)", "final_wake_local": "the last waking, local time (HH:mm)",
        "minutes_asleep": "the wearable's minutes asleep", "waso_minutes": "the wearable's minutes awake after falling asleep",
        "wake_count": "times sleep broke (empty for a source of totals, which does not count them)",
        "deep_minutes": "deep sleep, minutes", "rem_minutes": "REM sleep, minutes", "light_minutes": "light (core) sleep, minutes",
        "awake_minutes": "awake, minutes", "stage_at_dose2": "the stage at Dose 2 (empty without a timeline)",
        "minutes_from_deep_to_dose2": "minutes from the last deep sleep to Dose 2", "recovery_percent": "WHOOP's recovery, 0–100",
        "resting_heart_rate": "WHOOP's resting heart rate", "hrv_ms": "WHOOP's heart-rate variability (RMSSD), ms",
    ]
}
