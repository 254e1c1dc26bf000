import CompanionCore
import Foundation
import Testing

@testable import CompanionBridge

/// The heartbeat watchdog (O-WD-*), driven by a manual clock: no real waiting.
struct WatchdogTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("O-WD-1, O-OPEN-11: no readiness within 20 s fails; 19.9 s is still waiting")
    func readiness() {
        var watchdog = HeartbeatWatchdog()
        #expect(watchdog.state(at: start) == .idle)
        watchdog.loadStarted(at: start)
        #expect(watchdog.state(at: start + 19.9) == .awaitingReadiness(since: start))
        #expect(watchdog.state(at: start + 20) == .failed(.readinessTimedOut))
        // A late ready does not revive it.
        watchdog.ready(version: "1", at: start + 21)
        #expect(watchdog.state(at: start + 21) == .failed(.readinessTimedOut))
    }

    @Test("O-WD-2: heartbeats every 10 s keep it healthy; a gap over 15 s fails; exactly 15 s is fine")
    func heartbeats() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        watchdog.ready(version: "1", at: start + 5)
        for beat in 1...100 { watchdog.heartbeat(version: "1", at: start + 5 + Double(beat) * 10) }
        let last = start + 1_005
        #expect(watchdog.state(at: last + 15) == .healthy(lastBeat: last))
        #expect(watchdog.state(at: last + 15.001) == .failed(.heartbeatMissed))
    }

    @Test("O-BRIDGE-4, O-OPEN-11: a version other than 1 in ready or heartbeat is the mismatch state")
    func mismatch() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        watchdog.ready(version: "2", at: start + 1)
        #expect(watchdog.state(at: start + 1) == .failed(.versionMismatch("2")))
        var other = HeartbeatWatchdog()
        other.loadStarted(at: start)
        other.ready(version: "1", at: start + 1)
        other.heartbeat(version: "0", at: start + 2)
        #expect(other.state(at: start + 2) == .failed(.versionMismatch("0")))
    }

    @Test("O-WD-3: a new load restarts at the readiness phase; O-BRIDGE-11: process death is a state")
    func restart() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        #expect(watchdog.state(at: start + 30) == .failed(.readinessTimedOut))
        watchdog.loadStarted(at: start + 30)
        #expect(watchdog.state(at: start + 40) == .awaitingReadiness(since: start + 30))
        watchdog.contentProcessTerminated()
        #expect(watchdog.state(at: start + 41) == .failed(.contentProcessTerminated))
    }
}
