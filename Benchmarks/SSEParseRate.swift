import CompanionHTTP
import Foundation

/// P6 parse rate: events per second through the kit's `SSEParser` from an in-memory stream, fed in 16 KiB
/// chunks as a socket would hand them over, side by side with httpx-sse's line and event decoders (what its
/// `iter_sse` runs) reading the same bytes in the same chunks (`BENCH_PYTHON`, optional).
enum SSEParseRate {
    static let chunkSize = 16 * 1024

    /// A stream shaped like an agent's: three text deltas for every finished item, with ids and a
    /// keep-alive comment now and then.
    static func stream(events: Int) -> Data {
        var text = ""
        text.reserveCapacity(events * 200)
        for index in 0..<events {
            if index % 500 == 0 { text += ": keep-alive\n\n" }
            if index % 4 == 3 {
                text += "event: response.output_item.done\nid: \(index)\n"
                text +=
                    "data: {\"sequence_number\": \(index), \"type\": \"response.output_item.done\", \"item\": {\"id\": "
                    + "\"e49c86dff50f4bcdaba8913989b3\(String(format: "%04x", index % 65_536))\", \"type\": \"message\", "
                    + "\"status\": \"completed\", \"created_at\": 1796067377, \"role\": \"assistant\", \"content\": "
                    + "[{\"type\": \"output_text\", \"text\": \"Item \(index) is finished and stored.\"}]}}\n\n"
            } else {
                text += "event: response.output_text.delta\nid: \(index)\n"
                text += "data: {\"sequence_number\": \(index), \"type\": \"response.output_text.delta\", "
                text += "\"delta\": \"word \(index) \"}\n\n"
            }
        }
        return Data(text.utf8)
    }

    static func run(events: Int = 200_000, rounds: Int = 5) throws {
        let bytes = stream(events: events)
        var samples: [Double] = []
        for _ in 0..<rounds {
            var parser = SSEParser()
            var count = 0
            let start = ContinuousClock.now
            var offset = 0
            try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                while offset < buffer.count {
                    let end = min(buffer.count, offset + chunkSize)
                    count += try parser.feed(UnsafeRawBufferPointer(rebasing: buffer[offset..<end])).count
                    offset = end
                }
            }
            samples.append((ContinuousClock.now - start).seconds)
            guard count == events else { throw BenchmarkError("the parser returned \(count) of \(events) events") }
        }
        var python: [Double] = []
        if let interpreter = ProcessInfo.processInfo.environment["BENCH_PYTHON"], !interpreter.isEmpty {
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("p6-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let file = work.appendingPathComponent("stream.txt")
            try bytes.write(to: file)
            let script = work.appendingPathComponent("parse.py")
            try Data(pythonScript.utf8).write(to: script)
            for _ in 0..<rounds {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: interpreter)
                process.arguments = [script.path, file.path, "\(chunkSize)", "\(events)"]
                let output = Pipe()
                process.standardOutput = output
                try process.run()
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                guard process.terminationStatus == 0,
                    let seconds = Double(
                        String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                else { throw BenchmarkError("the Python SSE parser exited with \(process.terminationStatus)") }
                python.append(seconds)
            }
        }
        let kit = median(samples)
        let title =
            "P6: parse \(events) events (\(bytes.count / 1024) KiB) from memory, 16 KiB chunks, median of \(rounds)"
        var rows = [("CompanionKit SSEParser", kit, events)]
        if !python.isEmpty { rows.append(("Python httpx-sse line + event decoders", median(python), events)) }
        Report.table(id: "p6", title: title, rows: rows, baseline: kit, baselineName: "CompanionKit")
        print(String(format: "  CompanionKit: %.0f events/s (goal >= 100,000)", Double(events) / kit))
    }

    static let pythonScript = """
        import codecs, sys, time
        from httpx_sse._decoders import SSEDecoder, SSELineDecoder

        data = open(sys.argv[1], "rb").read()
        size, expected = int(sys.argv[2]), int(sys.argv[3])
        start = time.perf_counter()
        text, lines, sse, count = codecs.getincrementaldecoder("utf-8")(), SSELineDecoder(), SSEDecoder(), 0
        for offset in range(0, len(data), size):
            for line in lines.decode(text.decode(data[offset:offset + size])):
                event = sse.decode(line)
                if event is not None and event.data:
                    count += 1
        for line in lines.flush():
            event = sse.decode(line)
            if event is not None and event.data:
                count += 1
        elapsed = time.perf_counter() - start
        assert count == expected, (count, expected)
        print(elapsed)
        """
}
