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

    @Test("O-WD-2: heartbeats every 10 s keep it healthy; 15 s without one fails (14.99 s does not)")
    func heartbeats() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        watchdog.ready(version: "1", at: start + 5)
        for beat in 1...100 { watchdog.heartbeat(version: "1", at: start + 5 + Double(beat) * 10) }
        let last = start + 1_005
        #expect(watchdog.state(at: last + 14.99) == .healthy(lastBeat: last))
        #expect(watchdog.deadline == last + 15)
        #expect(watchdog.state(at: last + 15) == .failed(.heartbeatMissed))
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

    // The vectors below are ported from the real Omnigent iOS app's `MobileLivenessWatchdogTests`
    // (omnigent-ai/omnigent, web/ios/OmnigentTests), written against this watchdog's own API.

    /// Ported from `testCachedOldWebReadinessAndHeartbeatLossTimeouts`.
    @Test("O-WD-1/2: readiness fails at exactly 20 s, a heartbeat gap at exactly 15 s; a new load starts afresh")
    func readinessAndHeartbeatLossTimeouts() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        #expect(watchdog.state(at: start + 19.99) == .awaitingReadiness(since: start))
        #expect(watchdog.state(at: start + 20) == .failed(.readinessTimedOut))
        watchdog.settle(at: start + 20)
        watchdog.loadStarted(at: start + 20)
        watchdog.ready(version: "1", at: start + 20)
        let beat = start + 34.99
        watchdog.heartbeat(version: "1", at: beat)
        #expect(watchdog.state(at: beat + 14.99) == .healthy(lastBeat: beat))
        #expect(watchdog.state(at: beat + 15) == .failed(.heartbeatMissed))
    }

    /// Ported from `testProtocolMismatchFailsImmediately`.
    @Test("O-BRIDGE-4: another protocol version fails at once, with nothing left due")
    func mismatchFailsImmediately() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        watchdog.ready(version: "2", at: start)
        #expect(watchdog.state(at: start) == .failed(.versionMismatch("2")))
        #expect(watchdog.deadline == nil)
    }

    /// Ported from `testResumeAndAuthReturnPreserveCompatibilityThroughGraceWithHeartbeats`.
    @Test("O-WD-1 (amended): paused while inactive or off the pinned origin; 20 s grace after; readiness kept")
    func pauseAndGraceKeepReadiness() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        watchdog.ready(version: "1", at: start)
        watchdog.setActive(false, at: start)
        #expect(watchdog.state(at: start + 60) == .paused(ready: true))
        watchdog.setActive(true, at: start + 60)
        #expect(watchdog.deadline == start + 80, "a 20 s grace")
        watchdog.heartbeat(version: "1", at: start + 74)
        #expect(watchdog.state(at: start + 88) == .healthy(lastBeat: start + 74))

        watchdog.setOnPinnedOrigin(false, at: start + 88)
        #expect(watchdog.state(at: start + 148) == .paused(ready: true))
        watchdog.setOnPinnedOrigin(true, at: start + 148)
        #expect(watchdog.state(at: start + 148) == .resumed(since: start + 148))
        #expect(watchdog.deadline == start + 168)
        watchdog.heartbeat(version: "1", at: start + 162)
        #expect(watchdog.state(at: start + 176) == .healthy(lastBeat: start + 162))
        // The grace is 20 s: with no heartbeat at all after a return, it fails at exactly 20 s.
        watchdog.setActive(false, at: start + 176)
        watchdog.setActive(true, at: start + 200)
        #expect(watchdog.state(at: start + 219.99) == .resumed(since: start + 200))
        #expect(watchdog.state(at: start + 220) == .failed(.heartbeatMissed))
    }

    /// Ported from `testNewDocumentResetsCompatibilityAndRequiresReadiness`.
    @Test("O-WD-3: a new document forgets readiness; a heartbeat before readiness counts for nothing")
    func newDocumentRequiresReadiness() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        watchdog.ready(version: "1", at: start)
        watchdog.loadStarted(at: start)
        watchdog.heartbeat(version: "1", at: start + 10)
        #expect(watchdog.state(at: start + 19.99) == .awaitingReadiness(since: start))
        #expect(watchdog.state(at: start + 20) == .failed(.readinessTimedOut))
    }

    @Test("A pause before readiness keeps waiting for it; a load while paused starts paused; opt-in stays idle")
    func pauseBeforeReadiness() {
        var watchdog = HeartbeatWatchdog()
        watchdog.loadStarted(at: start)
        watchdog.setActive(false, at: start + 10)
        #expect(watchdog.state(at: start + 100) == .paused(ready: false))
        watchdog.loadStarted(at: start + 100)
        #expect(watchdog.recorded == .paused(ready: false))
        watchdog.setActive(true, at: start + 100)
        #expect(watchdog.state(at: start + 119.99) == .awaitingReadiness(since: start + 100))
        #expect(watchdog.state(at: start + 120) == .failed(.readinessTimedOut))
        // A deadline already passed when the pause comes stays a failure.
        var late = HeartbeatWatchdog()
        late.loadStarted(at: start)
        late.setActive(false, at: start + 25)
        #expect(late.state(at: start + 25) == .failed(.readinessTimedOut))
        // An opt-in watchdog with nothing opted in stays idle through pauses.
        var optIn = HeartbeatWatchdog(readiness: .optIn)
        optIn.loadStarted(at: start)
        optIn.setOnPinnedOrigin(false, at: start + 1)
        optIn.setOnPinnedOrigin(true, at: start + 2)
        #expect(optIn.state(at: start + 100) == .idle)
    }
}
