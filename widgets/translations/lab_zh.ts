<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="zh_CN">
<context>
    <name>lab</name>
    <message>
        <source>%1 batches</source>
        <translation type="vanished">%1 批</translation>
    </message>
    <message>
        <source>%1 button</source>
        <translation type="vanished">%1 按钮</translation>
    </message>
    <message>
        <source>%1 calls</source>
        <translation type="vanished">%1 次调用</translation>
    </message>
    <message>
        <source>%1 chunks</source>
        <translation type="vanished">%1 块</translation>
    </message>
    <message>
        <source>%1 cost</source>
        <translation type="vanished">%1 成本</translation>
    </message>
    <message>
        <source>%1 days</source>
        <translation type="vanished">%1 天</translation>
    </message>
    <message>
        <source>%1 events</source>
        <translation type="vanished">%1 个事件</translation>
    </message>
    <message>
        <source>%1 forwards</source>
        <translation type="vanished">%1 次前向</translation>
    </message>
    <message>
        <source>%1 forwards/s</source>
        <translation type="vanished">%1 次前向/s</translation>
    </message>
    <message>
        <source>%1 frames/s</source>
        <translation type="vanished">%1 帧/s</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="8"/>
        <source>%1 of %2 figures match across %3 calculators · %4 are derived (the book asks, prints no number)</source>
        <translation>%3 个计算器的 %2 个数值中 %1 个一致 · %4 个为推导值(书中提问但未印出数值)</translation>
    </message>
    <message>
        <source>%1 rank</source>
        <translation type="vanished">%1 秩</translation>
    </message>
    <message>
        <source>%1 request</source>
        <translation type="vanished">%1 个请求</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="10"/>
        <source>%1 request vs n in lockstep</source>
        <translation>%1 个请求 vs n 个同步</translation>
    </message>
    <message>
        <source>%1 requests (示意)</source>
        <translation type="vanished">%1 个请求(示意)</translation>
    </message>
    <message>
        <source>%1 rounds</source>
        <translation type="vanished">%1 轮</translation>
    </message>
    <message>
        <source>%1 tasks</source>
        <translation type="vanished">%1 个任务</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="22"/>
        <source>= H·W / (p²·r²) &amp;nbsp; · &amp;nbsp; E → P → D</source>
        <translation>= H·W / (p²·r²) &amp;nbsp; · &amp;nbsp; E → P → D</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="25"/>
        <source>A(t), P(t) and B(t) for a steady trickle</source>
        <translation>稳定细流下的 A(t)、P(t) 与 B(t)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="27"/>
        <source>Actual size</source>
        <translation>实际大小</translation>
    </message>
    <message>
        <source>Alpha</source>
        <translation type="vanished">透明度</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation type="vanished">自动</translation>
    </message>
    <message>
        <source>Auto Pan Only</source>
        <translation type="vanished">仅自动平移</translation>
    </message>
    <message>
        <source>Average</source>
        <translation type="vanished">平均</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="30"/>
        <source>Band over seeds</source>
        <translation>多种子区间</translation>
    </message>
    <message>
        <source>Clip to View</source>
        <translation type="vanished">裁剪到视图</translation>
    </message>
    <message>
        <source>D / N (log)</source>
        <translation type="vanished">D / N(对数)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="34"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Downsample</source>
        <translation type="vanished">降采样</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="35"/>
        <source>Every attempt is in the numerator, only successes in the denominator: %1 / %2 = %3 per success.</source>
        <translation>每次尝试都计入分子,只有成功计入分母:%1 / %2 = 每次成功 %3。</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="36"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Forget hidden traces</source>
        <translation type="vanished">丢弃隐藏曲线</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="44"/>
        <source>GPU hours</source>
        <translation>GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="45"/>
        <source>GPU hours (log)</source>
        <translation>GPU 小时(对数)</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation type="vanished">网格</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="46"/>
        <source>High contrast</source>
        <translation>高对比度</translation>
    </message>
    <message>
        <source>Invert Axis</source>
        <translation type="vanished">反转坐标轴</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="47"/>
        <source>KV pool</source>
        <translation>KV 池</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="48"/>
        <source>KV resident at once (GiB)</source>
        <translation>同时驻留的 KV (GiB)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="49"/>
        <source>Leave presentation mode</source>
        <translation>退出演示模式</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="50"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Link Axis:</source>
        <translation type="vanished">联动坐标轴:</translation>
    </message>
    <message>
        <source>Log X</source>
        <translation type="vanished">对数 X</translation>
    </message>
    <message>
        <source>Log Y</source>
        <translation type="vanished">对数 Y</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="51"/>
        <source>M(t) of tasks waiting, each holding M0 for τ</source>
        <translation>等待任务的 M(t):每个任务占用 M0,持续 τ</translation>
    </message>
    <message>
        <source>Manual</source>
        <translation type="vanished">手动</translation>
    </message>
    <message>
        <source>Max Traces:</source>
        <translation type="vanished">最多曲线数:</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation type="vanished">均值</translation>
    </message>
    <message>
        <source>Mouse Enabled</source>
        <translation type="vanished">启用鼠标</translation>
    </message>
    <message>
        <source>Mouse Mode</source>
        <translation type="vanished">鼠标模式</translation>
    </message>
    <message>
        <source>Opacity</source>
        <translation type="vanished">不透明度</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="52"/>
        <source>Open WAV…</source>
        <translation>打开 WAV…</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation type="vanished">峰值</translation>
    </message>
    <message>
        <source>Plot Options</source>
        <translation type="vanished">绘图选项</translation>
    </message>
    <message>
        <source>Points</source>
        <translation type="vanished">数据点</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="55"/>
        <source>Poisson arrivals, %1 seeds: press for the band of each scenario.</source>
        <translation>泊松到达,%1 个种子:按下可得每个场景的区间。</translation>
    </message>
    <message>
        <source>Power Spectrum (FFT)</source>
        <translation type="vanished">功率谱 (FFT)</translation>
    </message>
    <message>
        <source>Q* ≈ %1 M calls</source>
        <translation type="vanished">Q* ≈ %1 M 次调用</translation>
    </message>
    <message>
        <source>Q_{k+%1} = max(%2 Q_k + A_k − μΔt)</source>
        <translation type="vanished">Q_{k+%1} = max(%2 Q_k + A_k − μΔt)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="6"/>
        <source>%1 + %2 · pairs %3 · layer %4</source>
        <translation>%1 + %2 · 配对 %3 · 整层 %4</translation>
    </message>
    <message>
        <source>%1 card(s)</source>
        <translation type="vanished">%1 张卡</translation>
    </message>
    <message>
        <source>%1 cards</source>
        <translation type="vanished">%1 张卡</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="7"/>
        <source>%1 of %2 answers carry a signal; group mean %3.</source>
        <translation>%2 条回答中 %1 条带学习信号;组内均值 %3。</translation>
    </message>
    <message>
        <source>%1 pairs</source>
        <translation type="vanished">%1 对</translation>
    </message>
    <message>
        <source>%1 params</source>
        <translation type="vanished">%1 参数</translation>
    </message>
    <message>
        <source>%1 samples</source>
        <translation type="vanished">%1 条样本</translation>
    </message>
    <message>
        <source>%1 sequences</source>
        <translation type="vanished">%1 条序列</translation>
    </message>
    <message>
        <source>%1 updates</source>
        <translation type="vanished">%1 次更新</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="12"/>
        <source>%1/%2 batches done · busy: idle</source>
        <translation>已完成 %1/%2 批 · 忙碌:空闲</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="13"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="14"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="15"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="16"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="17"/>
        <source>&amp;gt; %1 GB capacity</source>
        <translation>&amp;gt; 容量 %1 GB</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="18"/>
        <source>(none yet)</source>
        <translation>(暂无)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="19"/>
        <source>: %1 TB/s · %2 TFLOP/s BF16 · token budget %3</source>
        <translation>:%1 TB/s · %2 TFLOP/s BF16 · 每步 token 预算 %3</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="20"/>
        <source>: state %1 GB + activation peak %2 GB = %3 GB per card vs %4 GB. %5 micro-batch(es) of %6 tokens; same data per step.</source>
        <translation>:状态 %1 GB + 激活峰值 %2 GB = 每卡 %3 GB,对比 %4 GB。%5 个 micro-batch,每个 %6 token;每步数据相同。</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="21"/>
        <source>: weights read per step %1 GB · KV %2 kB/token · %3 GFLOPs/token</source>
        <translation>:每步读权重 %1 GB · KV %2 kB/token · %3 GFLOPs/token</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="23"/>
        <source>A mean</source>
        <translation>A 均值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="24"/>
        <source>A median</source>
        <translation>A 中位数</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="26"/>
        <source>About Load Lab</source>
        <translation>关于 Load Lab</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="28"/>
        <source>B mean</source>
        <translation>B 均值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="29"/>
        <source>B median</source>
        <translation>B 中位数</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="31"/>
        <source>Close talk</source>
        <translation>关闭演讲</translation>
    </message>
    <message>
        <source>Counted by the chapter&apos;s rules (core/model_config/counting.py): %1 FLOPs per weight per row; sliding windows are noted, not modelled.</source>
        <translation type="vanished">按本章的计数规则:每个权重每行 %1 FLOPs;滑动窗口只记录,不建模。</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="37"/>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="38"/>
        <source>Export PDF…</source>
        <translation>导出 PDF…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="39"/>
        <source>Export PNG…</source>
        <translation>导出 PNG…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="40"/>
        <source>Export SVG…</source>
        <translation>导出 SVG…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="41"/>
        <source>Export panel… (PNG, SVG, PDF)</source>
        <translation>导出面板…(PNG、SVG、PDF)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="42"/>
        <source>Export window as shown… (PNG, SVG, PDF)</source>
        <translation>按当前显示导出窗口…(PNG、SVG、PDF)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="43"/>
        <source>FLOPs of one update</source>
        <translation>一次更新的 FLOPs</translation>
    </message>
    <message>
        <source>Load Lab · 推理与训练负载</source>
        <translation type="vanished">推理与训练负载</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="53"/>
        <source>Open session…</source>
        <translation>打开会话…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="54"/>
        <source>Open talk…</source>
        <translation>打开演讲…</translation>
    </message>
    <message>
        <source>Play / pause</source>
        <translation type="vanished">播放 / 暂停</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="56"/>
        <source>Presentation mode</source>
        <translation>演示模式</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="57"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="58"/>
        <source>Qwen3-%1B, B=%2 P=%3 full training</source>
        <translation>Qwen3-%1B,B=%2 P=%3 全量训练</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="59"/>
        <source>Recent sessions</source>
        <translation>最近的会话</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="60"/>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="61"/>
        <source>Reset panel</source>
        <translation>重置面板</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="62"/>
        <source>Run again</source>
        <translation>重新运行</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="63"/>
        <source>Save session…</source>
        <translation>保存会话…</translation>
    </message>
    <message>
        <source>Show X Grid</source>
        <translation type="vanished">显示 X 网格</translation>
    </message>
    <message>
        <source>Show Y Grid</source>
        <translation type="vanished">显示 Y 网格</translation>
    </message>
    <message>
        <source>Subsample</source>
        <translation type="vanished">子采样</translation>
    </message>
    <message>
        <source>Subtract Mean</source>
        <translation type="vanished">减去均值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="64"/>
        <source>TFLOPs per cycle</source>
        <translation>每周期 TFLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="65"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Transforms</source>
        <translation type="vanished">变换</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="67"/>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>View All</source>
        <translation type="vanished">显示全部</translation>
    </message>
    <message>
        <source>ViewBox options</source>
        <translation type="vanished">视图选项</translation>
    </message>
    <message>
        <source>Visible Data Only</source>
        <translation type="vanished">仅可见数据</translation>
    </message>
    <message>
        <source>X axis</source>
        <translation type="vanished">X 轴</translation>
    </message>
    <message>
        <source>Y axis</source>
        <translation type="vanished">Y 轴</translation>
    </message>
    <message>
        <source>Y vs. Y&apos;</source>
        <translation type="vanished">Y 对 Y&apos;</translation>
    </message>
    <message>
        <source>Your %1 values: p95 is the %2-th = %3.  Ranked separately (示意): queue: p95 = %4 s (rank %5)</source>
        <translation type="vanished">你的 %1 个值:p95 是第 %2 个 = %3。分别排序(示意):排队:p95 = %4 s(第 %5 个)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="69"/>
        <source>Zoom in</source>
        <translation>放大</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="70"/>
        <source>Zoom out</source>
        <translation>缩小</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="71"/>
        <source>a = %1 → n = %2: %3×%4¹⁵ FLOPs (%5× keeping all)</source>
        <translation>a = %1 → n = %2:%3×%4¹⁵ FLOPs(全部保留的 %5×)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="72"/>
        <source>a copy per branch</source>
        <translation>每分支一份</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="73"/>
        <source>advantage = reward − group mean</source>
        <translation>优势 = 奖励 − 组内均值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="74"/>
        <source>against one document</source>
        <translation>对比单文档</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="75"/>
        <source>answers generated n</source>
        <translation>生成回答数 n</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="76"/>
        <source>audio</source>
        <translation>音频</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="77"/>
        <source>audio (s)</source>
        <translation>音频 (s)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="78"/>
        <source>backlog</source>
        <translation>积压</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="79"/>
        <source>bars: A100 hours · ○ as reported · DeepSeek-V3: pre-training only</source>
        <translation>柱:A100 小时 · ○ 报告值 · DeepSeek-V3:仅预训练</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="80"/>
        <source>bars: decode steps/s as % of the cards&apos; bandwidth bound</source>
        <translation>柱:decode 步/s 占各卡带宽上限的 %</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="81"/>
        <source>bars: prompt and measured hits per round (first copy); dots: the engine&apos;s hits</source>
        <translation>柱:每轮提示与实测命中(第一份);点:引擎的命中</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="82"/>
        <location filename="strings_extra.py" line="13"/>
        <source>book prints</source>
        <translation>书中印出</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="83"/>
        <location filename="strings_extra.py" line="11"/>
        <source>book ref</source>
        <translation>书中位置</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="84"/>
        <location filename="strings_extra.py" line="14"/>
        <source>book value</source>
        <translation>书中数值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="85"/>
        <source>break-even p2</source>
        <translation>盈亏平衡 p2</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="86"/>
        <source>buffered audio (ms)</source>
        <translation>已缓冲音频 (ms)</translation>
    </message>
    <message>
        <source>bytes (log)</source>
        <translation type="vanished">字节(对数)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="87"/>
        <source>b·v = batch · weights version</source>
        <translation>b·v = 批次 · 权重版本</translation>
    </message>
    <message>
        <source>c, p from the card above</source>
        <translation type="vanished">c、p 取自上方卡片</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="90"/>
        <source>call (%1 = prefill, then decode step j+%2)</source>
        <translation>调用(%1 = prefill,之后为 decode 第 j+%2 步)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="91"/>
        <source>calls served (millions)</source>
        <translation>服务调用量(百万)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="92"/>
        <source>cap = f = %1%</source>
        <translation>上限 = f = %1%</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="93"/>
        <source>cards (state split evenly)</source>
        <translation>卡数(状态均分)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="94"/>
        <source>checking…</source>
        <translation>检查中…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="95"/>
        <source>chunk</source>
        <translation>块</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="96"/>
        <source>cold %1 → cached %2 TFLOPs · %3 of %4 prompt tokens hit</source>
        <translation>冷启动 %1 → 缓存 %2 TFLOPs · %4 个提示 token 中命中 %3</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="97"/>
        <location filename="strings_extra.py" line="15"/>
        <source>computed</source>
        <translation>计算值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="98"/>
        <source>computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="99"/>
        <source>context at the start of each call</source>
        <translation>每次调用开始时的上下文</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="100"/>
        <source>context tokens</source>
        <translation>上下文 token</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="101"/>
        <source>copy CLI</source>
        <translation>复制命令行</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="102"/>
        <source>cost of %1 attempts</source>
        <translation>%1 次尝试的成本</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="103"/>
        <source>cost per success</source>
        <translation>每次成功的成本</translation>
    </message>
    <message>
        <source>count</source>
        <translation type="vanished">计数</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="104"/>
        <source>datablations C4: loss vs tokens</source>
        <translation>datablations C4:损失 vs token</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="105"/>
        <source>decode demand</source>
        <translation>decode 需求</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="106"/>
        <source>decode j=%1: context S+P+j = %2</source>
        <translation>decode j=%1:上下文 S+P+j = %2</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="107"/>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="108"/>
        <source>drag the queue&apos;s edge</source>
        <translation>拖动排队段的边界</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="109"/>
        <source>drag the red line to the edit</source>
        <translation>把红线拖到改动处</translation>
    </message>
    <message>
        <source>dy/dx</source>
        <translation type="vanished">dy/dx</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="113"/>
        <source>filter: calculator, output or figure…</source>
        <translation>筛选:计算器、输出或图号…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="114"/>
        <source>first document (tokens); second = total − first</source>
        <translation>第一份文档(token);第二份 = 总长 − 第一份</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="115"/>
        <source>fit points</source>
        <translation>拟合点</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="116"/>
        <source>follow ▶</source>
        <translation>跟随 ▶</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="117"/>
        <source>fraction of requests</source>
        <translation>请求占比</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="118"/>
        <source>fraction of requests with TTFT ≤ x; dashed: the book&apos;s p95</source>
        <translation>TTFT ≤ x 的请求占比;虚线:书中的 p95</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="119"/>
        <source>gap between two tokens (ms)</source>
        <translation>两个 token 之间的间隔 (ms)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="120"/>
        <source>generated sample; its file size is the book&apos;s %1 MB screenshot (给定输入)</source>
        <translation>生成的样例;文件大小取书中 %1 MB 截图(给定输入)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="121"/>
        <source>group mean</source>
        <translation>组内均值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="123"/>
        <source>held out</source>
        <translation>留出</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="124"/>
        <source>is A with these shares of long-input requests per window:</source>
        <translation>即 A,各时段长输入占比如下:</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="125"/>
        <source>large model</source>
        <translation>大模型</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="126"/>
        <source>layer</source>
        <translation>整层</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="127"/>
        <source>loading §%1 请求与指标</source>
        <translation>载入中 §%1 请求与指标</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="128"/>
        <source>loss (nats/token)</source>
        <translation>损失 (nats/token)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="131"/>
        <source>mean of means</source>
        <translation>均值的均值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="132"/>
        <source>measured: press ▶ to stream</source>
        <translation>实测:按 ▶ 开始播放</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="133"/>
        <source>median</source>
        <translation>中位数</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="134"/>
        <source>method %1&apos;s cost per success as p2 moves</source>
        <translation>p2 变化时方法 %1 的每次成功成本</translation>
    </message>
    <message>
        <source>micro-batches a</source>
        <translation type="vanished">micro-batch 数 a</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="135"/>
        <source>model (filled) · measured in the callback (thin line) · after the mute, arrived audio waits until release</source>
        <translation>模型(填充)· 回调中实测(细线)· 静音后已到达的音频等到释放</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="136"/>
        <source>model → tools → model; shaded: state held</source>
        <translation>模型 → 工具 → 模型;阴影:占用的状态</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="137"/>
        <source>ms before now</source>
        <translation>距现在 ms</translation>
    </message>
    <message>
        <source>n requests</source>
        <translation type="vanished">n 个请求</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="138"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>no device: no output device (is a sound server running?) · the virtual clock sink keeps the same timing</source>
        <translation type="vanished">无设备:没有输出设备(声音服务在运行吗?)· 虚拟时钟输出保持相同时序</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="139"/>
        <source>one task: M0·τ = %1 GiB·s</source>
        <translation>单个任务:M0·τ = %1 GiB·s</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="140"/>
        <source>opening the device…</source>
        <translation>正在打开设备…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="141"/>
        <location filename="strings_extra.py" line="12"/>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="142"/>
        <source>p2 (success rate of method %1)</source>
        <translation>p2(方法 %1 的成功率)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="143"/>
        <source>parameter state resident; activations rise and fall</source>
        <translation>参数状态常驻;激活随步起落</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="144"/>
        <source>per hour, one agent running the task again and again</source>
        <translation>每小时,一个 agent 反复执行该任务</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="145"/>
        <source>per micro-batch</source>
        <translation>每个 micro-batch</translation>
    </message>
    <message>
        <source>§%1.2 packing ·</source>
        <translation type="vanished">§%1.2 打包 ·</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="203"/>
        <source>· %1 layer activations alive (—) ·</source>
        <translation>· %1 层激活存活(—)·</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="213"/>
        <source>异步 asynchronous · 生成与更新重叠,数据可能滞后</source>
        <translation>异步 · 生成与更新重叠,数据可能滞后</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="146"/>
        <source>preemptions</source>
        <translation>抢占</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="5"/>
        <source>% of capacity</source>
        <translation>占能力的 %</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="9"/>
        <source>%1 of %2 tasks/h qualify</source>
        <translation>%2 任务/h 中 %1 合格</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="11"/>
        <source>%1% of cases pass</source>
        <translation>%1% 用例通过</translation>
    </message>
    <message>
        <source>Ctrl+%1…%2 switch panels</source>
        <translation type="vanished">Ctrl+%1…%2 切换面板</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="33"/>
        <source>Ctrl+= / Ctrl+- zoom</source>
        <translation>Ctrl+= / Ctrl+- 缩放</translation>
    </message>
    <message>
        <source>F1 about</source>
        <translation type="vanished">F1 关于</translation>
    </message>
    <message>
        <source>F11 presentation</source>
        <translation type="vanished">F11 演示</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="68"/>
        <source>Your %1 values: p95 is the %2-th = %3 s.  Ranked separately (示意): queue: p95 = %4 s (rank %5)</source>
        <translation>你的 %1 个值:p95 是第 %2 个 = %3 s。分别排序(示意):排队:p95 = %4 s(第 %5 个)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="88"/>
        <source>c, p of both methods: 练习 %1-%2 card below</source>
        <translation>两种方法的 c、p:见下方练习 %1-%2 卡片</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="89"/>
        <location filename="strings_extra.py" line="10"/>
        <source>calculator</source>
        <translation>计算器</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="110"/>
        <source>engine %1 vs measured %2 cached tokens · %3/%4 rounds equal</source>
        <translation>引擎 %1 vs 实测 %2 缓存 token · %3/%4 轮相同</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="111"/>
        <source>expert layers each prompt token passes: %1 vs %2 + %3·min(P,%4)/P</source>
        <translation>每个提示 token 经过的专家层:%1 vs %2 + %3·min(P,%4)/P</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="112"/>
        <source>expert-layer passes per prompt token</source>
        <translation>每个提示 token 的专家层次数</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="147"/>
        <source>prompt tokens, in order</source>
        <translation>prompt token(按顺序)</translation>
    </message>
    <message>
        <source>queries ↓ keys →</source>
        <translation type="vanished">query ↓ key →</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="149"/>
        <source>rank (ascending)</source>
        <translation>秩(升序)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="151"/>
        <source>replaying…</source>
        <translation>回放中…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="152"/>
        <source>request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>requests</source>
        <translation type="vanished">请求</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="154"/>
        <source>reused %1 · recompute %2 tokens (%3% hit)</source>
        <translation>复用 %1 · 重算 %2 token(命中 %3%)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="155"/>
        <source>round</source>
        <translation>轮</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="156"/>
        <source>rows: requests by arrival · 灰 waiting · 蓝 prefill · 橙 decode · 红 preempted</source>
        <translation>行:按到达排序的请求 · 灰 等待 · 蓝 prefill · 橙 decode · 红 被抢占</translation>
    </message>
    <message>
        <source>rtx-pro-%1-blackwell · %2 GB</source>
        <translation type="vanished">rtx-pro-%1-blackwell · %2 GB</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="32"/>
        <source>Ctrl+%1…%2 Alt+%3…%4 switch panels</source>
        <translation>Ctrl+%1…%2 Alt+%3…%4 切换面板</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="33"/>
        <source>Ctrl+%1…%2 Alt+%3 switch panels</source>
        <translation>Ctrl+%1…%2 Alt+%3 切换面板</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="66"/>
        <source>USD per million output tokens</source>
        <translation>每百万输出 token 美元</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="122"/>
        <source>h100-sxm,a100-%1gb</source>
        <translation>h100-sxm,a100-%1gb</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="129"/>
        <source>max rate (requests/s)</source>
        <translation>最高速率 (请求/s)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="130"/>
        <source>max rate meeting the SLOs · line: best per replica count</source>
        <translation>满足 SLO 的最高速率 · 线:每个副本数的最优</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="148"/>
        <source>qwen3-%1b or a config.json</source>
        <translation>qwen3-%1b 或一个 config.json</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="150"/>
        <source>ray://head:%1 or %2.0.5:%3 (empty: a local Ray)</source>
        <translation>ray://head:%1 或 %2.0.5:%3(空:本机 Ray)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="153"/>
        <source>results folder (empty: memory only)</source>
        <translation>结果文件夹(空:只在内存)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="157"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="158"/>
        <source>same stream, two buffers</source>
        <translation>同一条流,两种缓冲</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="159"/>
        <source>saved share of the task vs local speed-up</source>
        <translation>任务节省比例 vs 局部加速</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="160"/>
        <source>saved share of the whole task (%)</source>
        <translation>整个任务节省的比例 (%)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="161"/>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="162"/>
        <source>share of gaps (%)</source>
        <translation>间隔占比 (%)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="163"/>
        <source>share of gaps per bin, every call of every copy · median %1 ms · p99 %2 ms · %3/%4 calls meet the SLO</source>
        <translation>每格间隔占比,所有副本的每次调用 · 中位数 %1 ms · p99 %2 ms · %3/%4 次调用满足 SLO</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="164"/>
        <source>shared prefix</source>
        <translation>共享前缀</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="165"/>
        <source>simulated A: %1 requests, %2 steps in %3 ms · B: %4 requests, %5 steps in %6 ms. Δ within ±%7% of the book&apos;s vLLM run shown green, beyond it orange.</source>
        <translation>模拟 A:%1 个请求,%2 步,用时 %3 ms · B:%4 个请求,%5 步,用时 %6 ms。与书中 vLLM 实测相差 ±%7% 以内显示绿色,超出显示橙色。</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="166"/>
        <source>small model</source>
        <translation>小模型</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="167"/>
        <source>source</source>
        <translation>音源</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="168"/>
        <source>speed-up of the part (×, log)</source>
        <translation>局部加速(×,对数)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="169"/>
        <source>stalls %1 · %2 s · interrupt → mute %3 ms</source>
        <translation>停顿 %1 次 · %2 s · 打断 → 静音 %3 ms</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="170"/>
        <source>state %1 GB + activations %2 GB =</source>
        <translation>状态 %1 GB + 激活 %2 GB =</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="171"/>
        <source>state held (GiB)</source>
        <translation>占用的状态 (GiB)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="172"/>
        <source>t =  %1 s · waiting    %2 · running   %3 · KV   %4%</source>
        <translation>t =  %1 s · 等待    %2 · 运行   %3 · KV   %4%</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="173"/>
        <source>tasks per hour</source>
        <translation>每小时任务数</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="174"/>
        <source>the last %1 ms the callback wrote</source>
        <translation>回调最近写出的 %1 ms</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="175"/>
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="176"/>
        <source>time (ms)</source>
        <translation>时间 (ms)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="177"/>
        <source>time (s)</source>
        <translation>时间 (s)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="178"/>
        <source>time in the step (s)</source>
        <translation>步内时间 (s)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="179"/>
        <source>time since arrival t_a (s)</source>
        <translation>自到达起的时间 t_a (s)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="180"/>
        <source>time since chunk %1 began (ms)</source>
        <translation>自第 %1 块开始的时间 (ms)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="181"/>
        <source>token mean (Σ n 作分母)</source>
        <translation>token 均值(Σ n 作分母)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="182"/>
        <source>token mean = %1,mean of means = %2。先各自求均值再平均,有效 token 少的 micro-batch 里每个 token 权重大 %3 倍;累计各 micro-batch 时分母应是整个 batch 的有效 token 总数。</source>
        <translation>token 均值 = %1,均值的均值 = %2。先各自求均值再平均,有效 token 少的 micro-batch 里每个 token 权重大 %3 倍;累计各 micro-batch 时分母应是整个 batch 的有效 token 总数。</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="183"/>
        <source>token position</source>
        <translation>token 位置</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="184"/>
        <location filename="strings_extra.py" line="16"/>
        <source>tolerance</source>
        <translation>容差</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="185"/>
        <source>total GPU hours vs calls served</source>
        <translation>总 GPU 小时 vs 服务调用量</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="186"/>
        <source>trace=… rates_per_s=%1 kv_pool_bytes=…</source>
        <translation>trace=… rates_per_s=%1 kv_pool_bytes=…</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="187"/>
        <source>training tokens D (log)</source>
        <translation>训练 token D(对数)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="188"/>
        <source>training tokens per parameter (log)</source>
        <translation>每参数训练 token(对数)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="189"/>
        <source>uniform | shift</source>
        <translation>uniform | shift</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="190"/>
        <source>used blocks / pool</source>
        <translation>已用块 / 池</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="191"/>
        <source>uses the form;</source>
        <translation>使用表单;</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="192"/>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="193"/>
        <source>view</source>
        <translation>视图</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="194"/>
        <source>virtual clock (no device)</source>
        <translation>虚拟时钟(无设备)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="195"/>
        <source>vs the split</source>
        <translation>对比切分</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="196"/>
        <source>waiting</source>
        <translation>等待</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="197"/>
        <source>waiting queue · running sequences</source>
        <translation>等待队列 · 运行序列</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="198"/>
        <source>weight of one token</source>
        <translation>单个 token 的权重</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="199"/>
        <source>weight reads</source>
        <translation>权重读取</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="200"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="201"/>
        <source>yours</source>
        <translation>你的</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="202"/>
        <source>zoom %1 %</source>
        <translation>缩放 %1 %</translation>
    </message>
    <message>
        <source>选一个目录里的模型或 config.json、一张卡或它的 TOML,两个回放的权重、KV、FLOPs、带宽与峰值随之改变</source>
        <translation type="vanished">选一个目录里的模型或 config.json、一张卡或它的 TOML,两个回放的权重、KV、FLOPs、带宽与峰值随之改变</translation>
    </message>
    <message>
        <source>§%1.2 Fish Audio S2 Pro ·</source>
        <translation type="vanished">§%1.2 Fish Audio S2 Pro ·</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="204"/>
        <source>· 原图 %1×%2 (%3 MP, %4 kB, generated RGB) → 模型看到 %5×%6</source>
        <translation>· 原图 %1×%2(%3 MP,%4 kB,生成的 RGB)→ 模型看到 %5×%6</translation>
    </message>
    <message>
        <source>μb1: %1 tok</source>
        <translation type="vanished">μb1:%1 token</translation>
    </message>
    <message>
        <source>μb2: %1 tok</source>
        <translation type="vanished">μb2:%1 token</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="205"/>
        <source>↺ book</source>
        <translation>↺ 书中值</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="206"/>
        <source>■ Stop</source>
        <translation>■ 停止</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="207"/>
        <source>▲ forward, ▼ backward (%1×); magenta: activations alive</source>
        <translation>▲ 前向,▼ 反向(%1×);品红:存活的激活</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="208"/>
        <source>▶ Play</source>
        <translation>▶ 播放</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="209"/>
        <source>✕ Interrupt</source>
        <translation>✕ 打断</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="210"/>
        <source>✕ cancel</source>
        <translation>✕ 取消</translation>
    </message>
    <message>
        <source>⤓ Export</source>
        <translation type="vanished">⤓ 导出</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="211"/>
        <source>同步 synchronous · 等新权重就绪再生成</source>
        <translation>同步 · 等新权重就绪再生成</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="212"/>
        <source>圆点 = 到达 · 短竖线 = 原定播放 · 色条 = 实际播放 (model; live run drawn over it)</source>
        <translation>圆点 = 到达 · 短竖线 = 原定播放 · 色条 = 实际播放(模型;实时运行叠加其上)</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="214"/>
        <source>样例 %1×%2 (generated)</source>
        <translation>样例 %1×%2(生成)</translation>
    </message>
    <message>
        <source>真实回放 · KV 池满了,空着的算力也接不了新请求 — continuous batching, two scenarios side by side</source>
        <translation type="vanished">真实回放 · KV 池满了,空着的算力也接不了新请求 — 连续批处理,两个场景并排</translation>
    </message>
    <message>
        <source>练习 %1-%2 · 只屏蔽标签 vs 只对监督 token 做词表投影</source>
        <translation type="vanished">练习 %1-%2 · 只屏蔽标签 vs 只对监督 token 做词表投影</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="215"/>
        <source>问题在前 before: 换问题后保留 %1 B,重算 %2 MiB</source>
        <translation>问题在前:换问题后保留 %1 B,重算 %2 MiB</translation>
    </message>
    <message>
        <location filename="strings_zh_lab.py" line="216"/>
        <source>问题在后 after: 换问题后保留 %1 MiB,重算 %2 MiB</source>
        <translation>问题在后:换问题后保留 %1 MiB,重算 %2 MiB</translation>
    </message>
    <message>
        <location filename="strings_extra.py" line="7"/>
        <source>· %1 layer activations alive (micro-batch %2/%3) ·</source>
        <translation>· %1 层激活存活(micro-batch %2/%3)·</translation>
    </message>
</context>
<context>
    <name>output</name>
    <message>
        <location filename="strings_zh_output.py" line="5"/>
        <source>A</source>
        <translation>拟合系数 A</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="6"/>
        <source>B</source>
        <translation>拟合系数 B</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="7"/>
        <source>E</source>
        <translation>不可约损失 E</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="8"/>
        <source>a100_gpu_hours</source>
        <translation>A100 等效 GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="9"/>
        <source>activation_bytes_per_layer_per_micro_batch</source>
        <translation>每层每 micro-batch 激活</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="10"/>
        <source>active_parameters</source>
        <translation>激活参数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="11"/>
        <source>adam_bytes_total</source>
        <translation>Adam 状态</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="12"/>
        <source>alias_failures</source>
        <translation>别名检查失败</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="13"/>
        <source>alpha</source>
        <translation>指数 α</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="14"/>
        <source>area_byte_s_per_task</source>
        <translation>每任务占用面积</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="15"/>
        <source>async_per_batch_s</source>
        <translation>异步每批时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="16"/>
        <source>async_total_s</source>
        <translation>异步总时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="17"/>
        <source>attention_flops</source>
        <translation>注意力运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="18"/>
        <source>attention_flops_per_pair</source>
        <translation>每对 query-key 的注意力 FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="19"/>
        <source>attention_share</source>
        <translation>注意力占比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="20"/>
        <source>attention_share_of_layer</source>
        <translation>注意力占该层比例</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="21"/>
        <source>audible_after_interrupt_s</source>
        <translation>打断后仍可听到</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="22"/>
        <source>audio_s_per_s</source>
        <translation>每秒生成音频</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="23"/>
        <source>backend_stop_at_s</source>
        <translation>后端停止时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="24"/>
        <source>backlog_at_end_of_arrivals</source>
        <translation>到达结束时积压</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="25"/>
        <source>beta</source>
        <translation>指数 β</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="26"/>
        <source>break_even_calls</source>
        <translation>盈亏平衡调用量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="27"/>
        <source>break_even_p2</source>
        <translation>盈亏平衡 p2</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="28"/>
        <source>break_even_tasks</source>
        <translation>盈亏平衡任务数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="29"/>
        <source>bytes_per_param</source>
        <translation>每参数字节</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="30"/>
        <source>bytes_per_step</source>
        <translation>每步读取字节</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="31"/>
        <source>cache_hit_rate</source>
        <translation>缓存命中率</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="32"/>
        <source>cached_prefill_flops</source>
        <translation>缓存时的 prefill FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="33"/>
        <source>cached_tokens</source>
        <translation>缓存 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="34"/>
        <source>call_saving_gpu_s</source>
        <translation>每次调用节省</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="35"/>
        <source>capacity_steps_per_s</source>
        <translation>总 decode 能力</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="36"/>
        <source>card_memory_bytes</source>
        <translation>卡显存</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="37"/>
        <source>case_pass_rate</source>
        <translation>用例通过率</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="38"/>
        <source>causal_pairs</source>
        <translation>因果配对数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="39"/>
        <source>ced_prompt_layer_tokens</source>
        <translation>CED 提示层次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="40"/>
        <source>checks_passed</source>
        <translation>通过的检查</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="41"/>
        <source>checks_passed_with_alias</source>
        <translation>含别名检查通过</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="42"/>
        <source>checks_total</source>
        <translation>检查总数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="43"/>
        <source>chinchilla_tokens</source>
        <translation>Chinchilla 最优 token 数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="44"/>
        <source>chunk_bytes</source>
        <translation>每块字节数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="45"/>
        <source>codebook_tokens_per_frame</source>
        <translation>每帧码本 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="46"/>
        <source>codebook_tokens_per_s</source>
        <translation>每秒码本 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="47"/>
        <source>cold_prefill_flops</source>
        <translation>冷启动 prefill FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="48"/>
        <source>cost_per_success</source>
        <translation>每次成功的成本</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="49"/>
        <source>cost_per_success_1</source>
        <translation>方法 1 每次成功成本</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="50"/>
        <source>cost_per_success_2</source>
        <translation>方法 2 每次成功成本</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="51"/>
        <source>cycle_flops</source>
        <translation>一个周期运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="52"/>
        <source>cycle_flops_high</source>
        <translation>周期运算量(高)</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="53"/>
        <source>cycle_flops_low</source>
        <translation>周期运算量(低)</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="54"/>
        <source>d_exponent</source>
        <translation>D 的指数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="55"/>
        <source>d_multiplier</source>
        <translation>D 的倍数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="56"/>
        <source>days</source>
        <translation>天数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="57"/>
        <source>deadline_misses</source>
        <translation>错过截止的块</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="58"/>
        <source>decode_flops</source>
        <translation>decode FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="59"/>
        <source>decode_steps</source>
        <translation>decode 步数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="60"/>
        <source>decode_steps_per_s</source>
        <translation>每秒新增 decode 步</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="61"/>
        <source>decode_steps_total</source>
        <translation>decode 总步数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="62"/>
        <source>decoder_only_prompt_layer_tokens</source>
        <translation>纯解码器提示层次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="63"/>
        <source>deficit_s_per_s</source>
        <translation>缓冲每秒缺口</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="64"/>
        <source>difference</source>
        <translation>差值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="65"/>
        <source>drain_s</source>
        <translation>排空时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="66"/>
        <source>dry_at_s</source>
        <translation>缓冲耗尽时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="67"/>
        <source>elapsed_s</source>
        <translation>总耗时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="68"/>
        <source>embedding_overcount_flops</source>
        <translation>词嵌入多算</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="69"/>
        <source>end_context_per_request</source>
        <translation>结束时每请求上下文</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="70"/>
        <source>engine_cached_tokens</source>
        <translation>引擎缓存 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="71"/>
        <source>engine_hit_rate</source>
        <translation>引擎命中率</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="72"/>
        <source>expert_flops_per_token</source>
        <translation>每 token 专家运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="73"/>
        <source>expert_train_flops</source>
        <translation>专家训练运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="74"/>
        <source>extra_flops_vs_keep_all</source>
        <translation>比全部保留多算</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="75"/>
        <source>extra_start_delay_s</source>
        <translation>额外起播延迟</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="76"/>
        <source>extra_train_gpu_h</source>
        <translation>额外训练 GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="77"/>
        <source>failures</source>
        <translation>失败次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="78"/>
        <source>fast_forwards_per_frame</source>
        <translation>每帧快路径前向</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="79"/>
        <source>fast_forwards_per_s</source>
        <translation>每秒快路径前向</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="80"/>
        <source>finish_a_s</source>
        <translation>A 播完时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="81"/>
        <source>finish_b_s</source>
        <translation>B 播完时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="82"/>
        <source>first_arrival_s</source>
        <translation>首块到达时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="83"/>
        <source>first_decode_context</source>
        <translation>首个 decode 步上下文</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="84"/>
        <source>first_playback_a_s</source>
        <translation>A 首播时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="85"/>
        <source>first_playback_b_s</source>
        <translation>B 首播时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="86"/>
        <source>first_playback_s</source>
        <translation>首播时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="87"/>
        <source>first_session_s</source>
        <translation>第一个会话耗时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="88"/>
        <source>first_useful_s</source>
        <translation>首个有用输出</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="89"/>
        <source>fit_sse</source>
        <translation>拟合残差平方和</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="90"/>
        <source>fits</source>
        <translation>是否放得下</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="91"/>
        <source>fits_per_card</source>
        <translation>每卡是否放得下</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="92"/>
        <source>fixed_update_flops</source>
        <translation>更新固定开销</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="93"/>
        <source>forward_flops</source>
        <translation>前向运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="94"/>
        <source>forwards_per_frame</source>
        <translation>每帧前向次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="95"/>
        <source>frame_time_s</source>
        <translation>每帧生成时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="96"/>
        <source>frames_per_s</source>
        <translation>每秒生成帧数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="97"/>
        <source>gen_flops_per_answer</source>
        <translation>每条回答生成运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="98"/>
        <source>gen_plus_ref_flops_per_answer</source>
        <translation>每条回答生成+参考</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="99"/>
        <source>generation_share</source>
        <translation>生成占比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="100"/>
        <source>good_requests</source>
        <translation>达标请求</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="101"/>
        <source>goodput_tasks_per_s</source>
        <translation>有效吞吐 (任务/s)</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="102"/>
        <source>grad_bytes_total</source>
        <translation>梯度</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="103"/>
        <source>grad_input_flops</source>
        <translation>输入梯度运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="104"/>
        <source>grad_input_shape_cols</source>
        <translation>输入梯度列数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="105"/>
        <source>grad_input_shape_rows</source>
        <translation>输入梯度行数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="106"/>
        <source>grad_saving_vs_fp32_bytes</source>
        <translation>比 FP32 梯度节省</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="107"/>
        <source>grad_weight_flops</source>
        <translation>权重梯度运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="108"/>
        <source>grad_weight_shape_cols</source>
        <translation>权重梯度列数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="109"/>
        <source>grad_weight_shape_rows</source>
        <translation>权重梯度行数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="110"/>
        <source>group_mean</source>
        <translation>组内均值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="111"/>
        <source>h1_predicted</source>
        <translation>留出点 1 预测</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="112"/>
        <source>h1_residual</source>
        <translation>留出点 1 残差</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="113"/>
        <source>h2_predicted</source>
        <translation>留出点 2 预测</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="114"/>
        <source>h2_residual</source>
        <translation>留出点 2 残差</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="115"/>
        <source>headroom_bytes</source>
        <translation>剩余显存</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="116"/>
        <source>holdout_rmse</source>
        <translation>留出均方根误差</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="117"/>
        <source>input_tokens</source>
        <translation>输入 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="118"/>
        <source>input_tokens_per_update</source>
        <translation>每次更新输入 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="119"/>
        <source>interrupt_to_mute_s</source>
        <translation>打断到静音</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="120"/>
        <source>itl_median_ms</source>
        <translation>ITL 中位数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="121"/>
        <source>itl_p99_ms</source>
        <translation>ITL p99</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="122"/>
        <source>kv_bytes_per_step</source>
        <translation>每步 KV 字节</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="123"/>
        <source>kv_bytes_per_token</source>
        <translation>每 token KV</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="124"/>
        <source>large_call_gpu_s</source>
        <translation>大模型每次调用</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="125"/>
        <source>large_tokens</source>
        <translation>大模型训练 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="126"/>
        <source>large_train_gpu_h</source>
        <translation>大模型训练 GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="127"/>
        <source>last_decode_context</source>
        <translation>末个 decode 步上下文</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="128"/>
        <source>layer_forward_flops</source>
        <translation>每层前向运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="129"/>
        <source>layer_forward_flops_single_document</source>
        <translation>单文档每层前向</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="130"/>
        <source>layer_work_ratio</source>
        <translation>整层工作之比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="131"/>
        <source>layer_work_vs_even_split</source>
        <translation>对比等长切分</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="132"/>
        <source>limit_ratio</source>
        <translation>极限比值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="133"/>
        <source>linear_flops_per_token</source>
        <translation>每 token 线性层 FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="134"/>
        <source>lm_head_flops</source>
        <translation>词表投影运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="135"/>
        <source>lm_head_flops_all_rows</source>
        <translation>全部行词表投影</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="136"/>
        <source>lm_head_flops_per_row</source>
        <translation>每行 LM head FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="137"/>
        <source>lm_head_flops_saved</source>
        <translation>词表投影节省</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="138"/>
        <source>lm_head_flops_supervised_rows</source>
        <translation>仅监督行词表投影</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="139"/>
        <source>makespan_s</source>
        <translation>全部完成耗时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="140"/>
        <source>master_bytes_total</source>
        <translation>FP32 主权重</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="141"/>
        <source>matrix_flops</source>
        <translation>矩阵运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="142"/>
        <source>max_abs_advantage</source>
        <translation>最大 |优势|</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="143"/>
        <source>max_lateness_s</source>
        <translation>最大迟到</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="144"/>
        <source>max_round_kv_bytes</source>
        <translation>单轮最大 KV</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="145"/>
        <source>max_staleness_seen</source>
        <translation>实际最大滞后</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="146"/>
        <source>max_weight_ratio</source>
        <translation>最大权重倍数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="147"/>
        <source>mean_decode_context_tokens</source>
        <translation>decode 平均上下文</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="148"/>
        <source>mean_decode_steps_per_request</source>
        <translation>每请求平均 decode 步</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="149"/>
        <source>mean_input_tokens</source>
        <translation>平均输入 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="150"/>
        <source>mean_occupancy_bytes</source>
        <translation>平均状态占用</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="151"/>
        <source>mean_of_means</source>
        <translation>均值的均值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="152"/>
        <source>mean_waiting_tasks</source>
        <translation>平均等待任务数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="153"/>
        <source>measured_cached_tokens</source>
        <translation>实测缓存 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="154"/>
        <source>min_cards_for_state</source>
        <translation>存状态最少卡数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="155"/>
        <source>model_s</source>
        <translation>模型时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="156"/>
        <source>mute_at_s</source>
        <translation>静音时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="157"/>
        <source>n</source>
        <translation>样本数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="158"/>
        <source>n_exponent</source>
        <translation>N 的指数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="159"/>
        <source>n_generate</source>
        <translation>生成回答数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="160"/>
        <source>n_multiplier</source>
        <translation>N 的倍数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="161"/>
        <source>new_input_tokens_per_s</source>
        <translation>每秒新输入 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="162"/>
        <source>new_total_s</source>
        <translation>加速后总时长</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="163"/>
        <source>norm_overcount_flops</source>
        <translation>归一化层多算</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="164"/>
        <source>on_time</source>
        <translation>按时完成</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="165"/>
        <source>other_s</source>
        <translation>其他时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="166"/>
        <source>output_layer_tokens</source>
        <translation>输出层次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="167"/>
        <source>output_tokens</source>
        <translation>输出 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="168"/>
        <source>output_tokens_per_request</source>
        <translation>每请求输出 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="169"/>
        <source>overall_speedup</source>
        <translation>整体加速</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="170"/>
        <source>pairs_ratio</source>
        <translation>配对数之比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="171"/>
        <source>pairs_single_document</source>
        <translation>单文档配对数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="172"/>
        <source>parallel_s</source>
        <translation>并行总时长</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="173"/>
        <source>parallel_state_byte_s</source>
        <translation>并行状态占用</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="174"/>
        <source>parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="175"/>
        <source>part_s</source>
        <translation>被加速部分时长</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="176"/>
        <source>passed</source>
        <translation>通过</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="177"/>
        <source>peak_activation_bytes</source>
        <translation>激活峰值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="178"/>
        <source>peak_at_s</source>
        <translation>峰值时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="179"/>
        <source>peak_backlog_steps</source>
        <translation>积压峰值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="180"/>
        <source>peak_ratio</source>
        <translation>峰值之比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="181"/>
        <source>peak_total_bytes</source>
        <translation>每卡总峰值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="182"/>
        <source>per_card_bytes</source>
        <translation>每卡分片</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="183"/>
        <source>per_sample_flops</source>
        <translation>每条样本运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="184"/>
        <source>playback_finish_s</source>
        <translation>播放结束时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="185"/>
        <source>played_before_dry_s</source>
        <translation>耗尽前已播放</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="186"/>
        <source>predicted_cycle_flops</source>
        <translation>预测周期运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="187"/>
        <source>prefill_batches</source>
        <translation>prefill 批次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="188"/>
        <source>prefill_calls</source>
        <translation>prefill 调用数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="189"/>
        <source>prompt_ratio</source>
        <translation>提示比值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="190"/>
        <source>rank</source>
        <translation>秩</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="191"/>
        <source>ratio_2_to_1</source>
        <translation>方法 2 与 1 之比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="192"/>
        <source>ratio_to_bf16_weights</source>
        <translation>对比 BF16 权重</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="193"/>
        <source>ratio_vs_6nd</source>
        <translation>对比 6ND</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="194"/>
        <source>ratio_vs_keep_all</source>
        <translation>对比全部保留</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="195"/>
        <source>ready_queue_peak_bytes</source>
        <translation>就绪队列峰值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="196"/>
        <source>real_time</source>
        <translation>是否实时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="197"/>
        <source>received_before_dry_s</source>
        <translation>耗尽前已到达</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="198"/>
        <source>recompute_flops</source>
        <translation>重算运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="199"/>
        <source>recompute_tokens</source>
        <translation>需重算 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="200"/>
        <source>ref_flops_per_answer</source>
        <translation>每条回答参考前向</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="201"/>
        <source>release_at_s</source>
        <translation>释放时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="202"/>
        <source>request_goodput</source>
        <translation>请求有效吞吐</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="203"/>
        <source>requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="204"/>
        <source>resident_state_bytes</source>
        <translation>常驻状态</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="205"/>
        <source>rest_s</source>
        <translation>其余时长</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="206"/>
        <source>reusable_prefix_tokens</source>
        <translation>可复用前缀 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="207"/>
        <source>reuse_fraction</source>
        <translation>复用比例</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="208"/>
        <source>rollout_busy_async</source>
        <translation>异步生成忙碌比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="209"/>
        <source>rollout_busy_sync</source>
        <translation>同步生成忙碌比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="210"/>
        <source>rounds</source>
        <translation>轮数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="211"/>
        <source>rounds_matching</source>
        <translation>相同的轮数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="212"/>
        <source>samples_with_signal</source>
        <translation>有学习信号的样本</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="213"/>
        <source>saved_fraction</source>
        <translation>节省比例</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="214"/>
        <source>saved_share_of_step</source>
        <translation>节省占更新比例</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="215"/>
        <source>sequences_per_update</source>
        <translation>每次更新序列数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="216"/>
        <source>serial_s</source>
        <translation>串行总时长</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="217"/>
        <source>serial_state_byte_s</source>
        <translation>串行状态占用</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="218"/>
        <source>serving_saving_gpu_h</source>
        <translation>服务节省 GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="219"/>
        <source>six_nd_flops</source>
        <translation>6ND 估算</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="220"/>
        <source>small_call_gpu_s</source>
        <translation>小模型每次调用</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="221"/>
        <source>small_extrapolated</source>
        <translation>小模型是否外推</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="222"/>
        <source>small_model_net_gpu_h</source>
        <translation>小模型净节省 GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="223"/>
        <source>small_tokens</source>
        <translation>小模型训练 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="224"/>
        <source>small_train_gpu_h</source>
        <translation>小模型训练 GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="225"/>
        <source>speedup</source>
        <translation>加速比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="226"/>
        <source>speedup_limit</source>
        <translation>加速上限</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="227"/>
        <source>stall_share_after_dry</source>
        <translation>耗尽后停顿占比</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="228"/>
        <source>state_bytes</source>
        <translation>状态占用</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="229"/>
        <source>step_duration_s</source>
        <translation>一步时长</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="230"/>
        <source>step_flops_label_masking</source>
        <translation>只屏蔽标签的更新运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="231"/>
        <source>step_flops_skip_projection</source>
        <translation>只投影监督行的更新运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="232"/>
        <source>step_time_s</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="233"/>
        <source>steps_per_s</source>
        <translation>每秒 decode 步</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="234"/>
        <source>steps_per_s_per_card</source>
        <translation>每卡每秒 decode 步</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="235"/>
        <source>supervised_tokens</source>
        <translation>监督 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="236"/>
        <source>supervised_tokens_per_update</source>
        <translation>每次更新监督 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="237"/>
        <source>sync_per_batch_s</source>
        <translation>同步每批时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="238"/>
        <source>sync_total_s</source>
        <translation>同步总时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="239"/>
        <source>t_request_s</source>
        <translation>请求总时长 T_request</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="240"/>
        <source>t_token_s</source>
        <translation>每 token 间隔 T_token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="241"/>
        <source>task_ratio</source>
        <translation>任务比值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="242"/>
        <source>task_s</source>
        <translation>任务耗时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="243"/>
        <source>teacher_flops</source>
        <translation>教师运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="244"/>
        <source>teacher_forcing_rows</source>
        <translation>teacher forcing 行数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="245"/>
        <source>text_tokens_per_s</source>
        <translation>每秒文本 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="246"/>
        <source>throughput_tasks_per_s</source>
        <translation>吞吐 (任务/s)</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="247"/>
        <source>times_chinchilla</source>
        <translation>Chinchilla 的倍数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="248"/>
        <source>token_mean</source>
        <translation>token 均值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="249"/>
        <source>tokens</source>
        <translation>token 数 D</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="250"/>
        <source>tokens_per_micro_batch</source>
        <translation>每 micro-batch token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="251"/>
        <source>tokens_per_parameter</source>
        <translation>每参数 token 数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="252"/>
        <source>tool_s</source>
        <translation>工具时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="253"/>
        <source>tool_wait_kv_byte_s</source>
        <translation>工具等待时的 KV byte·s</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="254"/>
        <source>tool_work_s</source>
        <translation>工具耗时</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="255"/>
        <source>total_bytes</source>
        <translation>总字节</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="256"/>
        <source>total_cost</source>
        <translation>总成本</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="257"/>
        <source>total_flops</source>
        <translation>总运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="258"/>
        <source>total_stall_a_s</source>
        <translation>A 总停顿</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="259"/>
        <source>total_stall_b_s</source>
        <translation>B 总停顿</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="260"/>
        <source>total_stall_s</source>
        <translation>总停顿</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="261"/>
        <source>total_tokens</source>
        <translation>总 token 数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="262"/>
        <source>train_flops</source>
        <translation>训练运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="263"/>
        <source>ttft_s</source>
        <translation>首 token 时间 TTFT</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="264"/>
        <source>uncached_tokens</source>
        <translation>未缓存 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="265"/>
        <source>underruns</source>
        <translation>欠载次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="266"/>
        <source>underruns_a</source>
        <translation>A 欠载次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="267"/>
        <source>underruns_b</source>
        <translation>B 欠载次数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="268"/>
        <source>unshared_state_bytes</source>
        <translation>不共享时的状态</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="269"/>
        <source>update_flops</source>
        <translation>更新运算量</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="270"/>
        <source>update_input_tokens</source>
        <translation>更新读取 token</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="271"/>
        <source>value</source>
        <translation>该秩的值</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="272"/>
        <source>wall_hours</source>
        <translation>日历时间</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="273"/>
        <source>weight_bytes_total</source>
        <translation>BF16 权重</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="274"/>
        <source>weight_read_rounds</source>
        <translation>权重读取轮数</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="275"/>
        <source>weight_sync_bytes</source>
        <translation>权重同步字节</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="276"/>
        <source>weights_bytes</source>
        <translation>权重大小</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="277"/>
        <source>weights_read_per_step_bytes</source>
        <translation>每步读取的权重</translation>
    </message>
    <message>
        <location filename="strings_zh_output.py" line="278"/>
        <source>zero_signal</source>
        <translation>学习信号归零</translation>
    </message>
</context>
<context>
    <name>param</name>
    <message>
        <location filename="strings_zh_param.py" line="5"/>
        <source>a100_peak_flops</source>
        <translation>A100 峰值算力</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="6"/>
        <source>adam_m_bytes</source>
        <translation>Adam 一阶矩</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="7"/>
        <source>adam_v_bytes</source>
        <translation>Adam 二阶矩</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="8"/>
        <source>adaptive</source>
        <translation>自适应缓冲</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="9"/>
        <source>alpha</source>
        <translation>指数 α</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="10"/>
        <source>appended_tokens</source>
        <translation>追加 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="11"/>
        <source>arrival</source>
        <translation>到达方式</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="12"/>
        <source>arrival_rate_per_s</source>
        <translation>到达率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="13"/>
        <source>arrival_rate_s_per_s</source>
        <translation>每秒到达音频</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="14"/>
        <source>attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="15"/>
        <source>attention_flops_per_pair</source>
        <translation>每对注意力 FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="16"/>
        <source>backend_stop_ms</source>
        <translation>后端停止耗时</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="17"/>
        <source>bandwidth_bytes_per_s</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="18"/>
        <source>bandwidth_efficiency</source>
        <translation>带宽效率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="19"/>
        <source>batch</source>
        <translation>每步序列数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="20"/>
        <source>batches</source>
        <translation>批数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="21"/>
        <source>beta</source>
        <translation>指数 β</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="22"/>
        <source>block_size</source>
        <translation>KV 块大小</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="23"/>
        <source>branch_tokens</source>
        <translation>每分支 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="24"/>
        <source>budget_multiplier</source>
        <translation>预算倍数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="25"/>
        <source>buffer_a_ms</source>
        <translation>初始缓冲 A</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="26"/>
        <source>buffer_b_ms</source>
        <translation>初始缓冲 B</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="27"/>
        <source>buffer_ms</source>
        <translation>抖动缓冲</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="28"/>
        <source>buffered_s</source>
        <translation>起播时已缓冲</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="29"/>
        <source>bytes_per_sample</source>
        <translation>每样本字节</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="30"/>
        <source>c1</source>
        <translation>方法 1 单次成本</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="31"/>
        <source>c2</source>
        <translation>方法 2 单次成本</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="32"/>
        <source>card</source>
        <translation>显卡</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="33"/>
        <source>cards</source>
        <translation>卡数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="34"/>
        <source>channels</source>
        <translation>声道数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="35"/>
        <source>chunk_ms</source>
        <translation>每块时长</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="36"/>
        <source>chunks</source>
        <translation>块数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="37"/>
        <source>class_order</source>
        <translation>类别顺序</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="38"/>
        <source>codebook_predictions</source>
        <translation>码本预测次数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="39"/>
        <source>completion</source>
        <translation>完成率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="40"/>
        <source>config</source>
        <translation>config.json</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="41"/>
        <source>context_tokens</source>
        <translation>已有上下文</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="42"/>
        <source>control_delay_ms</source>
        <translation>控制延迟</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="43"/>
        <source>copies</source>
        <translation>副本数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="44"/>
        <source>cv</source>
        <translation>间隔变异系数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="45"/>
        <source>deadline_s</source>
        <translation>截止时间</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="46"/>
        <source>device_quantum_ms</source>
        <translation>设备检查周期</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="47"/>
        <source>doc_lengths</source>
        <translation>各文档长度</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="48"/>
        <source>dt_s</source>
        <translation>采样间隔 Δt</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="49"/>
        <source>dtype_bytes</source>
        <translation>每特征字节</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="50"/>
        <source>durations_s</source>
        <translation>各时段时长</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="51"/>
        <source>edit_position</source>
        <translation>改动位置</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="52"/>
        <source>encoder_layers</source>
        <translation>编码器层数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="53"/>
        <source>extra_train_gpu_h</source>
        <translation>额外训练 GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="54"/>
        <source>fast_forward_ms</source>
        <translation>快路径单次前向</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="55"/>
        <source>feature_copies</source>
        <translation>特征份数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="56"/>
        <source>feature_width</source>
        <translation>特征宽度</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="57"/>
        <source>frames_per_audio_s</source>
        <translation>每秒音频帧数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="58"/>
        <source>gpu_hours</source>
        <translation>GPU 小时</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="59"/>
        <source>grad_bytes</source>
        <translation>梯度字节</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="60"/>
        <source>grid_max</source>
        <translation>网格上限</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="61"/>
        <source>grid_min</source>
        <translation>网格下限</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="62"/>
        <source>grid_step</source>
        <translation>网格步长</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="63"/>
        <source>hidden_size</source>
        <translation>隐藏维度 h</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="64"/>
        <source>input_grad_needed</source>
        <translation>需要输入梯度</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="65"/>
        <source>input_tokens</source>
        <translation>输入 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="66"/>
        <source>interrupt_at_ms</source>
        <translation>打断时刻</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="67"/>
        <source>jitter_ms</source>
        <translation>平均抖动</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="68"/>
        <source>k</source>
        <translation>输入宽度 k</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="69"/>
        <source>keep_kv_during_tool</source>
        <translation>工具等待时保留 KV</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="70"/>
        <source>keep_ratio</source>
        <translation>保留比例</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="71"/>
        <source>kv_bytes_per_token</source>
        <translation>每 token KV</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="72"/>
        <source>kv_pool_bytes</source>
        <translation>KV 池大小</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="73"/>
        <source>large_parameters</source>
        <translation>大模型参数量</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="74"/>
        <source>layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="75"/>
        <source>lm_head_flops_per_row</source>
        <translation>每行 LM head FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="76"/>
        <source>long_input_in_tokens</source>
        <translation>长输入类 输入</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="77"/>
        <source>long_input_out_tokens</source>
        <translation>长输入类 输出</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="78"/>
        <source>long_output_in_tokens</source>
        <translation>长输出类 输入</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="79"/>
        <source>long_output_out_tokens</source>
        <translation>长输出类 输出</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="80"/>
        <source>m</source>
        <translation>行数 m</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="81"/>
        <source>master_bytes</source>
        <translation>主权重字节</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="82"/>
        <source>matrix_flops_per_token</source>
        <translation>每 token 矩阵 FLOPs</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="83"/>
        <source>max_num_seqs</source>
        <translation>最大并发序列</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="84"/>
        <source>max_pixels</source>
        <translation>像素上限</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="85"/>
        <source>max_staleness</source>
        <translation>最大滞后</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="86"/>
        <source>mean_context_tokens</source>
        <translation>平均上下文</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="87"/>
        <source>mean_losses</source>
        <translation>各 micro-batch 平均损失</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="88"/>
        <source>merge</source>
        <translation>合并边长</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="89"/>
        <source>mfu</source>
        <translation>MFU</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="90"/>
        <source>micro_batches</source>
        <translation>micro-batch 数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="91"/>
        <source>min_pixels</source>
        <translation>像素下限</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="92"/>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="93"/>
        <source>model_after_s</source>
        <translation>工具后模型调用</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="94"/>
        <source>model_before_s</source>
        <translation>工具前模型调用</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="95"/>
        <source>moe_intermediate_size</source>
        <translation>专家中间维度 f</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="96"/>
        <source>n</source>
        <translation>输出宽度 n</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="97"/>
        <source>n_generate</source>
        <translation>生成样本数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="98"/>
        <source>n_high</source>
        <translation>第二次测量生成数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="99"/>
        <source>n_keep</source>
        <translation>保留样本数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="100"/>
        <source>n_low</source>
        <translation>第一次测量生成数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="101"/>
        <source>n_predict</source>
        <translation>预测周期生成数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="102"/>
        <source>network_ms</source>
        <translation>网络延迟</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="103"/>
        <source>output_tokens</source>
        <translation>输出 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="104"/>
        <source>output_tokens_total</source>
        <translation>总输出 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="105"/>
        <source>p1</source>
        <translation>方法 1 成功率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="106"/>
        <source>p2</source>
        <translation>方法 2 成功率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="107"/>
        <source>parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="108"/>
        <source>part_fraction</source>
        <translation>被加速部分占比</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="109"/>
        <source>patch</source>
        <translation>patch 边长</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="110"/>
        <source>peak_flops</source>
        <translation>峰值算力</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="111"/>
        <source>prefill_mfu</source>
        <translation>prefill MFU</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="112"/>
        <source>prefill_s</source>
        <translation>prefill 时间</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="113"/>
        <source>prefix_caching</source>
        <translation>前缀缓存</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="114"/>
        <source>prefix_tokens</source>
        <translation>前缀 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="115"/>
        <source>prepare_s</source>
        <translation>输入准备</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="116"/>
        <source>price_per_card_hour</source>
        <translation>每卡每小时价格</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="117"/>
        <source>process_ms</source>
        <translation>每块处理时间</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="118"/>
        <source>prompt_tokens</source>
        <translation>prompt token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="119"/>
        <source>q</source>
        <translation>分位数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="120"/>
        <source>question</source>
        <translation>问题位置</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="121"/>
        <source>queue_s</source>
        <translation>排队时间</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="122"/>
        <source>rate_per_s</source>
        <translation>请求到达率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="123"/>
        <source>rates_per_s</source>
        <translation>各时段到达率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="124"/>
        <source>recompute</source>
        <translation>重算激活</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="125"/>
        <source>refeed_tokens</source>
        <translation>回灌 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="126"/>
        <source>reference_s</source>
        <translation>参考模型前向</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="127"/>
        <source>release_ms</source>
        <translation>释放耗时</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="128"/>
        <source>replicas</source>
        <translation>推理副本数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="129"/>
        <source>requests</source>
        <translation>请求数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="130"/>
        <source>reserve_full_prompt</source>
        <translation>整段 prompt 预留</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="131"/>
        <source>resize</source>
        <translation>缩放方式</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="132"/>
        <source>reward_s</source>
        <translation>奖励计算</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="133"/>
        <source>rewards</source>
        <translation>组内各回答奖励</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="134"/>
        <source>rollout_s</source>
        <translation>每批生成</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="135"/>
        <source>routed_experts_per_token</source>
        <translation>每 token 路由专家</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="136"/>
        <source>router</source>
        <translation>路由策略</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="137"/>
        <source>sample_rate_hz</source>
        <translation>采样率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="138"/>
        <source>saving_per_task_gpu_s</source>
        <translation>每任务节省</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="139"/>
        <source>scale_by_std</source>
        <translation>除以标准差</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="140"/>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="141"/>
        <source>send_ms</source>
        <translation>每块发送时间</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="142"/>
        <source>seq_len</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="143"/>
        <source>sequences</source>
        <translation>并发序列</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="144"/>
        <source>sequences_per_micro_batch</source>
        <translation>每 micro-batch 序列</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="145"/>
        <source>setup_forwards</source>
        <translation>快路径准备前向</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="146"/>
        <source>share_long_input</source>
        <translation>长输入占比</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="147"/>
        <source>shared_experts</source>
        <translation>共享专家</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="148"/>
        <source>shared_prefix_tokens</source>
        <translation>共享前缀 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="149"/>
        <source>shares_long_input</source>
        <translation>各时段长输入占比</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="150"/>
        <source>slo_tpot_ms</source>
        <translation>TPOT 目标</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="151"/>
        <source>slo_ttft_ms</source>
        <translation>TTFT 目标</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="152"/>
        <source>slow_step_ms</source>
        <translation>慢路径单步</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="153"/>
        <source>slow_steps_per_frame</source>
        <translation>每帧慢路径步数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="154"/>
        <source>small_parameters</source>
        <translation>小模型参数量</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="155"/>
        <source>speedup</source>
        <translation>局部加速倍数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="156"/>
        <source>spike_ms</source>
        <translation>尖峰大小</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="157"/>
        <source>spike_prob</source>
        <translation>尖峰概率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="158"/>
        <source>stagger_s</source>
        <translation>错开间隔</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="159"/>
        <source>state_bytes</source>
        <translation>每任务状态</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="160"/>
        <source>step_overhead_s</source>
        <translation>每步固定开销</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="161"/>
        <source>steps_per_s_per_card</source>
        <translation>每卡 decode 速率</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="162"/>
        <source>successes</source>
        <translation>成功次数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="163"/>
        <source>supervised_tokens_per_sequence</source>
        <translation>每序列监督 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="164"/>
        <source>sync_s</source>
        <translation>权重同步</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="165"/>
        <source>target_loss</source>
        <translation>目标损失</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="166"/>
        <source>tasks</source>
        <translation>任务数</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="167"/>
        <source>teacher_samples</source>
        <translation>教师前向样本</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="168"/>
        <source>text_tokens</source>
        <translation>文本 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="169"/>
        <source>text_tokens_per_audio_s</source>
        <translation>每秒音频文本 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="170"/>
        <source>thinking_tokens</source>
        <translation>思考 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="171"/>
        <source>token_budget</source>
        <translation>每步 token 预算</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="172"/>
        <source>token_counts</source>
        <translation>各 micro-batch 有效 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="173"/>
        <source>token_interval_s</source>
        <translation>token 间隔</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="174"/>
        <source>tokens</source>
        <translation>训练 token</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="175"/>
        <source>tool_a_s</source>
        <translation>工具 A</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="176"/>
        <source>tool_b_s</source>
        <translation>工具 B</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="177"/>
        <source>total_cost</source>
        <translation>总成本</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="178"/>
        <source>total_s</source>
        <translation>任务总时长</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="179"/>
        <source>trace</source>
        <translation>轨迹</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="180"/>
        <source>update_s</source>
        <translation>更新</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="181"/>
        <source>values</source>
        <translation>观测值</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="182"/>
        <source>wait_s</source>
        <translation>等待时长</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="183"/>
        <source>weight_bytes</source>
        <translation>权重字节</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="184"/>
        <source>weight_frozen</source>
        <translation>冻结权重</translation>
    </message>
    <message>
        <location filename="strings_zh_param.py" line="185"/>
        <source>weights_bytes</source>
        <translation>权重大小</translation>
    </message>
</context>
</TS>
