<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="zh_CN">
<context>
    <name>lab</name>
    <message>
        <location filename="strings_zh.py" line="5"/>
        <source>%1 batches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="6"/>
        <source>%1 button</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="7"/>
        <source>%1 calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="8"/>
        <source>%1 chunks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="9"/>
        <source>%1 cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="10"/>
        <source>%1 days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="11"/>
        <source>%1 events</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="12"/>
        <source>%1 forwards</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="13"/>
        <source>%1 forwards/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="14"/>
        <source>%1 frames/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="15"/>
        <source>%1 of %2 figures match across %3 calculators · %4 are derived (the book asks, prints no number)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="16"/>
        <source>%1 rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="17"/>
        <source>%1 request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="18"/>
        <source>%1 request vs n in lockstep</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="19"/>
        <source>%1 requests (示意)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="20"/>
        <source>%1 rounds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="21"/>
        <source>%1 tasks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="22"/>
        <source>%1×%2 = %3 个 patch → %4×%5 = %6 个视觉 token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="23"/>
        <source>= H·W / (p²·r²) &amp;nbsp; · &amp;nbsp; E → P → D</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="24"/>
        <source>A · 每个请求 (Gantt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="25"/>
        <source>A(t), P(t) and B(t) for a steady trickle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="26"/>
        <source>Alpha</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="27"/>
        <source>Auto</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="28"/>
        <source>Auto Pan Only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="29"/>
        <source>Average</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="30"/>
        <source>B · 每个请求 (Gantt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="31"/>
        <source>Band over seeds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="32"/>
        <source>CSV data…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="33"/>
        <source>Clip to View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="34"/>
        <source>D / N (log)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="35"/>
        <source>Downsample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="36"/>
        <source>Every attempt is in the numerator, only successes in the denominator: %1 / %2 = %3 per success.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="37"/>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="38"/>
        <source>Forget hidden traces</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="39"/>
        <source>GPU hours</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="40"/>
        <source>Grid</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="41"/>
        <source>Invert Axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="42"/>
        <source>KV pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="43"/>
        <source>KV resident at once (GiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="44"/>
        <source>Link Axis:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="45"/>
        <source>Log X</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="46"/>
        <source>Log Y</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="47"/>
        <source>M(t) of tasks waiting, each holding M0 for τ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="48"/>
        <source>Manual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="49"/>
        <source>Max Traces:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="50"/>
        <source>Mean</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="51"/>
        <source>Mouse Enabled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="52"/>
        <source>Mouse Mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="53"/>
        <source>Opacity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="54"/>
        <source>Open WAV…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="55"/>
        <source>PNG image…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="56"/>
        <source>Peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="57"/>
        <source>Plot Options</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="58"/>
        <source>Points</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="59"/>
        <source>Poisson arrivals, %1 seeds: press for the band of each scenario.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="60"/>
        <source>Power Spectrum (FFT)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="61"/>
        <source>Q* ≈ %1 M calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="62"/>
        <source>Q_{k+%1} = max(%2 Q_k + A_k − μΔt)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="63"/>
        <source>Qwen3-%1B · %2 张 RTX PRO %3 · KV 池 %4 GiB · %5 序列 · 前缀缓存关。FCFS、%6-token 块、每步先 decode 再分块 prefill(预算 %7 token)、整段 prompt 的块空出来才接纳、块不够时抢占最近接纳的请求并重算。步时 = 屋顶线(带宽效率、prefill MFU、每步开销为示意旋钮)。书中实测值(vLLM %8)列在模拟值旁。</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="64"/>
        <source>Run again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="65"/>
        <source>Show X Grid</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="66"/>
        <source>Show Y Grid</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="67"/>
        <source>Subsample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="68"/>
        <source>Subtract Mean</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="69"/>
        <source>Transforms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="70"/>
        <source>View All</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="71"/>
        <source>ViewBox options</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="72"/>
        <source>Visible Data Only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="73"/>
        <source>X axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="74"/>
        <source>Y axis</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="75"/>
        <source>Y vs. Y&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="76"/>
        <source>Your %1 values: p95 is the %2-th = %3.  Ranked separately (示意): queue: p95 = %4 s (rank %5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="77"/>
        <source>audio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="78"/>
        <source>audio (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="79"/>
        <source>backlog</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="80"/>
        <source>bars: decode steps/s as % of the cards&apos; bandwidth bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="81"/>
        <source>break-even p2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="82"/>
        <source>buffered audio (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="83"/>
        <source>bytes (log)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="84"/>
        <source>call (%1 = prefill, then decode step j+%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="85"/>
        <source>calls served (millions)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="86"/>
        <source>cap = f = %1%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="87"/>
        <source>checking…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="88"/>
        <source>chunk</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="89"/>
        <source>computing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="90"/>
        <source>context at the start of each call</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="91"/>
        <source>context tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="92"/>
        <source>copy CLI</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="93"/>
        <source>cost per success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="94"/>
        <source>count</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="95"/>
        <source>datablations C4: loss vs tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="96"/>
        <source>decode demand</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="97"/>
        <source>decode j=%1: context S+P+j = %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="98"/>
        <source>device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="99"/>
        <source>drag the queue&apos;s edge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="100"/>
        <source>drag the red line to the edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="101"/>
        <source>dy/dx</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="102"/>
        <source>filter: calculator, output or figure…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="103"/>
        <source>fit points</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="104"/>
        <source>follow ▶</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="105"/>
        <source>fraction of requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="106"/>
        <source>fraction of requests with TTFT ≤ x; dashed: the book&apos;s p95</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="107"/>
        <source>generated sample; its file size is the book&apos;s %1 MB screenshot (给定输入)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="108"/>
        <source>held out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="109"/>
        <source>is A with these shares of long-input requests per window:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="110"/>
        <source>large model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="111"/>
        <source>loss (nats/token)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="112"/>
        <source>measured: press ▶ to stream</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="113"/>
        <source>method %1&apos;s cost per success as p2 moves</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="114"/>
        <source>model (filled) · measured in the callback (thin line) · after the mute, arrived audio waits until release</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="115"/>
        <source>model → tools → model; shaded: state held</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="116"/>
        <source>ms before now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="117"/>
        <source>n requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="118"/>
        <source>no device: no output device (is a sound server running?) · the virtual clock sink keeps the same timing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="119"/>
        <source>one task: M0·τ = %1 GiB·s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="120"/>
        <source>opening the device…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="121"/>
        <source>p2 (success rate of method %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="122"/>
        <source>patch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="123"/>
        <source>patch 网格</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="124"/>
        <source>preemptions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="125"/>
        <source>prompt tokens, in order</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="126"/>
        <source>rank (ascending)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="127"/>
        <source>replaying…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="128"/>
        <source>request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="129"/>
        <source>requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="130"/>
        <source>reused %1 · recompute %2 tokens (%3% hit)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="131"/>
        <source>rows: requests by arrival · 灰 waiting · 蓝 prefill · 橙 decode · 红 preempted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="132"/>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="133"/>
        <source>same stream, two buffers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="134"/>
        <source>saved share of the task vs local speed-up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="135"/>
        <source>saved share of the whole task (%)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="136"/>
        <source>seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="137"/>
        <source>simulated A: %1 requests, %2 steps in %3 ms · B: %4 requests, %5 steps in %6 ms. Δ within ±%7% of the book&apos;s vLLM run shown green, beyond it orange.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="138"/>
        <source>small model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="139"/>
        <source>source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="140"/>
        <source>speed-up of the part (×, log)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="141"/>
        <source>stalls %1 · %2 s · interrupt → mute %3 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="142"/>
        <source>state held (GiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="143"/>
        <source>t =  %1 s · waiting    %2 · running   %3 · KV   %4%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="144"/>
        <source>the last %1 ms the callback wrote</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="145"/>
        <source>time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="146"/>
        <source>time (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="147"/>
        <source>time (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="148"/>
        <source>time since arrival t_a (s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="149"/>
        <source>time since chunk %1 began (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="150"/>
        <source>token position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="151"/>
        <source>total GPU hours vs calls served</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="152"/>
        <source>training tokens D (log)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="153"/>
        <source>training tokens per parameter (log)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="154"/>
        <source>used blocks / pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="155"/>
        <source>uses the form;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="156"/>
        <source>virtual clock (no device)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="157"/>
        <source>waiting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="158"/>
        <source>waiting queue · running sequences</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="159"/>
        <source>yes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="160"/>
        <source>§%1 多轮交互与 Agent 任务</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="161"/>
        <source>§%1.2 Fish Audio S2 Pro ·</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="162"/>
        <source>§%1.2 V4-Flash / V4-Pro ·</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="163"/>
        <source>· 原图 %1×%2 (%3 MP, %4 kB, generated RGB) → 模型看到 %5×%6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="164"/>
        <source>↺ book</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="165"/>
        <source>■ Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="166"/>
        <source>▶ Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="167"/>
        <source>✕ Interrupt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="168"/>
        <source>圆点 = 到达 · 短竖线 = 原定播放 · 色条 = 实际播放 (model; live run drawn over it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="169"/>
        <source>悬停一个 token,看它合并了哪几个 patch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="170"/>
        <source>样例 %1×%2 (generated)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="171"/>
        <source>模型与缩放策略 · Qwen3-VL-%1B (patch %2 %3×%4 合并, DeepStack ×%5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="172"/>
        <source>步时与 codec 帧率为示意</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="173"/>
        <source>真实回放 · KV 池满了,空着的算力也接不了新请求 — continuous batching, two scenarios side by side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="174"/>
        <source>问题在前 before: 换问题后保留 %1 B,重算 %2 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="175"/>
        <source>问题在后 after: 换问题后保留 %1 MiB,重算 %2 MiB</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>output</name>
    <message>
        <location filename="strings_zh.py" line="176"/>
        <source>A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="177"/>
        <source>B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="178"/>
        <source>E</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="179"/>
        <source>a100_gpu_hours</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="180"/>
        <source>alpha</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="181"/>
        <source>area_byte_s_per_task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="182"/>
        <source>audible_after_interrupt_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="183"/>
        <source>audio_s_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="184"/>
        <source>backend_stop_at_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="185"/>
        <source>backlog_at_end_of_arrivals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="186"/>
        <source>beta</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="187"/>
        <source>break_even_calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="188"/>
        <source>break_even_p2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="189"/>
        <source>break_even_tasks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="190"/>
        <source>bytes_per_step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="191"/>
        <source>call_saving_gpu_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="192"/>
        <source>capacity_steps_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="193"/>
        <source>chinchilla_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="194"/>
        <source>chunk_bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="195"/>
        <source>codebook_tokens_per_frame</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="196"/>
        <source>codebook_tokens_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="197"/>
        <source>cost_per_success</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="198"/>
        <source>cost_per_success_1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="199"/>
        <source>cost_per_success_2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="200"/>
        <source>d_exponent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="201"/>
        <source>d_multiplier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="202"/>
        <source>days</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="203"/>
        <source>deadline_misses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="204"/>
        <source>decode_steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="205"/>
        <source>decode_steps_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="206"/>
        <source>decode_steps_total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="207"/>
        <source>deficit_s_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="208"/>
        <source>drain_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="209"/>
        <source>dry_at_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="210"/>
        <source>end_context_per_request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="211"/>
        <source>expert_flops_per_token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="212"/>
        <source>expert_train_flops</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="213"/>
        <source>extra_start_delay_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="214"/>
        <source>extra_train_gpu_h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="215"/>
        <source>failures</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="216"/>
        <source>fast_forwards_per_frame</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="217"/>
        <source>fast_forwards_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="218"/>
        <source>finish_a_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="219"/>
        <source>finish_b_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="220"/>
        <source>first_arrival_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="221"/>
        <source>first_decode_context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="222"/>
        <source>first_playback_a_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="223"/>
        <source>first_playback_b_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="224"/>
        <source>first_playback_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="225"/>
        <source>first_useful_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="226"/>
        <source>fit_sse</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="227"/>
        <source>forwards_per_frame</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="228"/>
        <source>frame_time_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="229"/>
        <source>frames_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="230"/>
        <source>h1_predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="231"/>
        <source>h1_residual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="232"/>
        <source>h2_predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="233"/>
        <source>h2_residual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="234"/>
        <source>holdout_rmse</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="235"/>
        <source>interrupt_to_mute_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="236"/>
        <source>kv_bytes_per_step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="237"/>
        <source>large_call_gpu_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="238"/>
        <source>large_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="239"/>
        <source>large_train_gpu_h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="240"/>
        <source>last_decode_context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="241"/>
        <source>max_lateness_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="242"/>
        <source>mean_decode_context_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="243"/>
        <source>mean_decode_steps_per_request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="244"/>
        <source>mean_input_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="245"/>
        <source>mean_occupancy_bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="246"/>
        <source>mean_waiting_tasks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="247"/>
        <source>mute_at_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="248"/>
        <source>n</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="249"/>
        <source>n_exponent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="250"/>
        <source>n_multiplier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="251"/>
        <source>new_input_tokens_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="252"/>
        <source>new_total_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="253"/>
        <source>output_tokens_per_request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="254"/>
        <source>overall_speedup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="255"/>
        <source>parallel_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="256"/>
        <source>parallel_state_byte_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="257"/>
        <source>part_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="258"/>
        <source>peak_at_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="259"/>
        <source>peak_backlog_steps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="260"/>
        <source>peak_ratio</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="261"/>
        <source>playback_finish_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="262"/>
        <source>played_before_dry_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="263"/>
        <source>prefill_batches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="264"/>
        <source>prefill_calls</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="265"/>
        <source>rank</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="266"/>
        <source>ratio_2_to_1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="267"/>
        <source>ready_queue_peak_bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="268"/>
        <source>real_time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="269"/>
        <source>received_before_dry_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="270"/>
        <source>recompute_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="271"/>
        <source>release_at_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="272"/>
        <source>rest_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="273"/>
        <source>reusable_prefix_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="274"/>
        <source>reuse_fraction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="275"/>
        <source>saved_fraction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="276"/>
        <source>serial_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="277"/>
        <source>serial_state_byte_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="278"/>
        <source>serving_saving_gpu_h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="279"/>
        <source>small_call_gpu_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="280"/>
        <source>small_extrapolated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="281"/>
        <source>small_model_net_gpu_h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="282"/>
        <source>small_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="283"/>
        <source>small_train_gpu_h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="284"/>
        <source>speedup_limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="285"/>
        <source>stall_share_after_dry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="286"/>
        <source>state_bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="287"/>
        <source>step_time_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="288"/>
        <source>steps_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="289"/>
        <source>steps_per_s_per_card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="290"/>
        <source>t_request_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="291"/>
        <source>t_token_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="292"/>
        <source>text_tokens_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="293"/>
        <source>times_chinchilla</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="294"/>
        <source>tokens_per_parameter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="295"/>
        <source>tool_work_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="296"/>
        <source>total_cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="297"/>
        <source>total_stall_a_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="298"/>
        <source>total_stall_b_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="299"/>
        <source>total_stall_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="300"/>
        <source>total_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="301"/>
        <source>train_flops</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="302"/>
        <source>ttft_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="303"/>
        <source>underruns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="304"/>
        <source>underruns_a</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="305"/>
        <source>underruns_b</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="306"/>
        <source>unshared_state_bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="307"/>
        <source>value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="308"/>
        <source>wall_hours</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="309"/>
        <source>weight_read_rounds</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>param</name>
    <message>
        <location filename="strings_zh.py" line="310"/>
        <source>a100_peak_flops</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="311"/>
        <source>adaptive</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="312"/>
        <source>alpha</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="313"/>
        <source>appended_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="314"/>
        <source>arrival</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="315"/>
        <source>arrival_rate_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="316"/>
        <source>arrival_rate_s_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="317"/>
        <source>attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="318"/>
        <source>backend_stop_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="319"/>
        <source>bandwidth_bytes_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="320"/>
        <source>bandwidth_efficiency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="321"/>
        <source>beta</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="322"/>
        <source>block_size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="323"/>
        <source>branch_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="324"/>
        <source>budget_multiplier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="325"/>
        <source>buffer_a_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="326"/>
        <source>buffer_b_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="327"/>
        <source>buffer_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="328"/>
        <source>buffered_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="329"/>
        <source>bytes_per_sample</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="330"/>
        <source>c1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="331"/>
        <source>c2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="332"/>
        <source>cards</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="333"/>
        <source>channels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="334"/>
        <source>chunk_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="335"/>
        <source>chunks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="336"/>
        <source>class_order</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="337"/>
        <source>codebook_predictions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="338"/>
        <source>context_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="339"/>
        <source>control_delay_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="340"/>
        <source>cv</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="341"/>
        <source>device_quantum_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="342"/>
        <source>dt_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="343"/>
        <source>dtype_bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="344"/>
        <source>durations_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="345"/>
        <source>edit_position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="346"/>
        <source>extra_train_gpu_h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="347"/>
        <source>fast_forward_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="348"/>
        <source>feature_copies</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="349"/>
        <source>feature_width</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="350"/>
        <source>frames_per_audio_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="351"/>
        <source>gpu_hours</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="352"/>
        <source>grid_max</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="353"/>
        <source>grid_min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="354"/>
        <source>grid_step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="355"/>
        <source>hidden_size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="356"/>
        <source>input_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="357"/>
        <source>interrupt_at_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="358"/>
        <source>jitter_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="359"/>
        <source>kv_bytes_per_token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="360"/>
        <source>kv_pool_bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="361"/>
        <source>large_parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="362"/>
        <source>layers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="363"/>
        <source>long_input_in_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="364"/>
        <source>long_input_out_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="365"/>
        <source>long_output_in_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="366"/>
        <source>long_output_out_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="367"/>
        <source>max_num_seqs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="368"/>
        <source>max_pixels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="369"/>
        <source>mean_context_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="370"/>
        <source>merge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="371"/>
        <source>mfu</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="372"/>
        <source>min_pixels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="373"/>
        <source>model_after_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="374"/>
        <source>model_before_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="375"/>
        <source>moe_intermediate_size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="376"/>
        <source>network_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="377"/>
        <source>output_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="378"/>
        <source>output_tokens_total</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="379"/>
        <source>p1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="380"/>
        <source>p2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="381"/>
        <source>parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="382"/>
        <source>part_fraction</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="383"/>
        <source>patch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="384"/>
        <source>peak_flops</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="385"/>
        <source>prefill_mfu</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="386"/>
        <source>prefill_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="387"/>
        <source>prefix_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="388"/>
        <source>prepare_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="389"/>
        <source>process_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="390"/>
        <source>q</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="391"/>
        <source>question</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="392"/>
        <source>queue_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="393"/>
        <source>rate_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="394"/>
        <source>rates_per_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="395"/>
        <source>release_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="396"/>
        <source>requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="397"/>
        <source>reserve_full_prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="398"/>
        <source>resize</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="399"/>
        <source>routed_experts_per_token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="400"/>
        <source>sample_rate_hz</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="401"/>
        <source>saving_per_task_gpu_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="402"/>
        <source>seed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="403"/>
        <source>send_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="404"/>
        <source>sequences</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="405"/>
        <source>setup_forwards</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="406"/>
        <source>share_long_input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="407"/>
        <source>shared_experts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="408"/>
        <source>shared_prefix_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="409"/>
        <source>shares_long_input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="410"/>
        <source>slow_step_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="411"/>
        <source>slow_steps_per_frame</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="412"/>
        <source>small_parameters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="413"/>
        <source>speedup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="414"/>
        <source>spike_ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="415"/>
        <source>spike_prob</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="416"/>
        <source>state_bytes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="417"/>
        <source>step_overhead_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="418"/>
        <source>steps_per_s_per_card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="419"/>
        <source>successes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="420"/>
        <source>target_loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="421"/>
        <source>tasks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="422"/>
        <source>text_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="423"/>
        <source>text_tokens_per_audio_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="424"/>
        <source>thinking_tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="425"/>
        <source>token_budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="426"/>
        <source>token_interval_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="427"/>
        <source>tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="428"/>
        <source>tool_a_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="429"/>
        <source>tool_b_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="430"/>
        <source>total_cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="431"/>
        <source>total_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="432"/>
        <source>values</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="433"/>
        <source>wait_s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="strings_zh.py" line="434"/>
        <source>weights_bytes</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
