// filingqa's page: ask a question (its steps streamed as they happen), read the answer
// with its working and citations, see a cited page with the passage highlighted, and add
// filings. Plain ES module, no build step, nothing fetched from anywhere but this server.

const TOKEN_KEY = "filingqa.token";
const POLL_MS = 400;
const STAGES = ["queued", "running", "done"]; // an upload's job, once the file is sent

const $ = (id) => document.getElementById(id);

const state = {
  token: sessionStorage.getItem(TOKEN_KEY) || "",
  filings: [],
  asking: false,
  uploading: false,
  sourceRequest: 0,
  highlight: null,
  busyTimer: null,
};

/** A request the server refused or could not answer; `status` 0 when it was not reached. */
class ApiError extends Error {
  constructor(status, detail, retryAfter = null) {
    super(detail);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

// ---------------------------------------------------------------- requests and the token

function withToken(headers = {}) {
  const out = new Headers(headers);
  if (state.token) out.set("Authorization", `Bearer ${state.token}`);
  return out;
}

/** The `detail` of an error body (FastAPI's validation errors are a list), else the text. */
function detailOf(text, status, statusText) {
  try {
    const body = JSON.parse(text);
    if (typeof body.detail === "string") return body.detail;
    if (Array.isArray(body.detail)) {
      return body.detail.map((item) => item.msg || JSON.stringify(item)).join("; ");
    }
  } catch {
    // not JSON: the text itself, if any
  }
  return (text || "").trim() || `${status} ${statusText}`.trim();
}

/** `fetch` with the token; a response that is not OK is thrown as an ApiError. */
async function api(path, options = {}) {
  let response;
  try {
    response = await fetch(path, { ...options, headers: withToken(options.headers) });
  } catch {
    throw new ApiError(0, "the server could not be reached: is filingqa serve still running?");
  }
  if (response.ok) return response;
  let text = "";
  try {
    text = await response.text();
  } catch {
    // the body was lost: the status says enough
  }
  if (response.status === 401) askForToken();
  const retry = Number.parseInt(response.headers.get("Retry-After") || "", 10);
  throw new ApiError(
    response.status,
    detailOf(text, response.status, response.statusText),
    Number.isFinite(retry) ? retry : null,
  );
}

function askForToken() {
  const panel = $("token-panel");
  $("token-message").textContent = state.token
    ? "The server refused this token: enter the right one."
    : "This server needs an access token: ask whoever runs it.";
  const wasHidden = panel.hidden;
  panel.hidden = false;
  if (wasHidden) $("token").focus();
}

function useToken(event) {
  event.preventDefault();
  const token = $("token").value.trim();
  if (!token) return;
  state.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
  $("token").value = "";
  $("token-panel").hidden = true;
  loadFilings();
  $("question").focus();
}

// ---------------------------------------------------------------- filings and filters

async function loadFilings() {
  const summary = $("index-summary");
  try {
    state.filings = await (await api("/v1/filings")).json();
  } catch (error) {
    summary.textContent =
      error.status === 401
        ? "The index needs an access token."
        : `The filings could not be listed: ${error.message}`;
    $("documents").replaceChildren(hint("No filings to show."));
    return;
  }
  const companies = companiesOf(state.filings);
  const count = state.filings.length;
  summary.textContent = count
    ? `Index: ${plural(count, "filing")} from ${plural(companies.length, "company", "companies")}`
    : "Index: no filings yet (add one below)";
  renderCompanies(companies);
  renderDocuments();
}

function companiesOf(filings) {
  const seen = new Map();
  for (const filing of filings) {
    if (filing.company && !seen.has(filing.company)) seen.set(filing.company, filing.ticker);
  }
  return [...seen.entries()]
    .map(([name, ticker]) => ({ name, ticker }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function renderCompanies(companies) {
  const select = $("company");
  const chosen = select.value;
  const options = [new Option("All companies", "")];
  for (const { name, ticker } of companies) {
    options.push(new Option(ticker ? `${name} (${ticker})` : name, name));
  }
  select.replaceChildren(...options);
  select.value = companies.some((c) => c.name === chosen) ? chosen : "";
}

function shownFilings() {
  const company = $("company").value;
  return state.filings.filter((f) => !company || f.company === company);
}

function renderDocuments() {
  const box = $("documents");
  const ticked = new Set(tickedDocuments());
  const shown = shownFilings();
  if (!shown.length) {
    box.replaceChildren(hint("No filings indexed yet: add one below."));
    return;
  }
  box.replaceChildren(
    ...shown.map((filing) => {
      const label = document.createElement("label");
      label.className = "document";
      const tick = document.createElement("input");
      tick.type = "checkbox";
      tick.name = "doc_ids";
      tick.value = filing.doc_id;
      tick.checked = ticked.has(filing.doc_id);
      label.append(tick, span("doc-id", filing.doc_id), span("doc-meta", describe(filing)));
      return label;
    }),
  );
}

function describe(filing) {
  const parts = [docType(filing.doc_type)];
  if (filing.fiscal_year) {
    parts.push(`FY${filing.fiscal_year}${filing.fiscal_quarter ? ` Q${filing.fiscal_quarter}` : ""}`);
  }
  if (filing.pages) parts.push(plural(filing.pages, "page"));
  return parts.filter(Boolean).join(" · ");
}

/** "10k" as "10-K"; other kinds as they are. */
function docType(kind) {
  if (!kind || kind === "other") return "";
  return /^\d+[a-z]$/i.test(kind) ? kind.toUpperCase().replace(/^(\d+)/, "$1-") : kind.replace(/_/g, " ");
}

function tickedDocuments() {
  return [...document.querySelectorAll("#documents input:checked")].map((box) => box.value);
}

// ---------------------------------------------------------------- asking

function setAsking(asking) {
  state.asking = asking;
  disable($("ask-button"), asking);
  $("ask-running").hidden = !asking;
  $("ask-form").setAttribute("aria-busy", String(asking));
}

function onQuestionKey(event) {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("ask-form").requestSubmit();
  }
}

async function ask(event) {
  event.preventDefault();
  if (state.asking) return;
  const question = $("question").value.trim();
  if (!question) {
    showStatus("error", "Type a question first.");
    $("question").focus();
    return;
  }
  const body = { question };
  const company = $("company").value;
  if (company) body.company = company;
  const ticked = tickedDocuments();
  if (ticked.length) body.doc_ids = ticked;
  else if (company) body.doc_ids = shownFilings().map((f) => f.doc_id);

  clearResults();
  setAsking(true);
  showStatus("info", "Answering: the steps appear as they run.");
  let ended = false;
  try {
    const response = await api("/v1/ask/stream", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
    for await (const [kind, data] of events(response)) {
      if (kind === "step") {
        addStep(data);
      } else if (kind === "answer") {
        ended = true;
        showAnswer(data);
        showStatus("info", "");
      } else if (kind === "error") {
        ended = true;
        showStatus("error", data.busy ? `Busy: ${data.detail}. Ask again shortly.` : sentence(data.detail));
      }
    }
    if (!ended) showStatus("error", "The connection closed before the answer came: ask again.");
  } catch (error) {
    if (error.status === 503) {
      showBusy(error.retryAfter, error.message);
    } else if (error.status === 401) {
      showStatus("error", "This server needs an access token: enter it above, then ask again.");
    } else if (error.status === 0) {
      showStatus("error", sentence(error.message));
    } else {
      showStatus("error", `The question was not answered: ${error.message}`);
    }
  } finally {
    setAsking(false);
  }
}

/** The server-sent events of a streamed response, as [event, data] pairs. */
async function* events(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer = (buffer + value).replace(/\r\n/g, "\n");
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
        end = buffer.indexOf("\n\n");
      }
      if (done) break;
    }
    const last = parseEvent(buffer);
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}

function parseEvent(block) {
  let kind = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") kind = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return null;
  try {
    return [kind, JSON.parse(data.join("\n"))];
  } catch {
    return null;
  }
}

function showStatus(kind, message) {
  clearInterval(state.busyTimer);
  const box = $("ask-status");
  box.className = `status ${kind}`;
  box.setAttribute("role", kind === "error" ? "alert" : "status");
  box.textContent = message;
}

function showBusy(seconds, detail) {
  showStatus("busy", sentence(detail));
  if (!seconds) return;
  const box = $("ask-status");
  let left = seconds;
  const tell = () => {
    box.textContent =
      left > 0
        ? `The server is busy answering other questions: try again in ${plural(left, "second")}.`
        : "The server may be free now: ask again.";
  };
  tell();
  state.busyTimer = setInterval(() => {
    left -= 1;
    tell();
    if (left <= 0) clearInterval(state.busyTimer);
  }, 1000);
}

function clearResults() {
  $("steps").replaceChildren();
  $("steps-empty").hidden = false;
  $("answer-empty").hidden = true;
  $("answer-body").hidden = true;
  $("answer-details").hidden = true;
  resetSource();
}

function addStep(step) {
  $("steps-empty").hidden = true;
  const item = document.createElement("li");
  item.className = step.fault ? "step fault" : "step";
  const head = document.createElement("div");
  head.className = "step-head";
  const facts = [`${seconds(step.seconds)}`];
  if (step.lm_calls) facts.push(plural(step.lm_calls, "LM call"));
  head.append(span("step-name", step.name), span("step-facts", facts.join(" · ")));
  item.append(head);
  if (step.fault) item.append(span("step-fault", `fault: ${step.fault}`));
  if (step.note) item.append(span("step-note", step.note));
  $("steps").append(item);
}

const OUTCOMES = {
  answered: "answered",
  unverified: "unverified",
  refused: "refused",
  error: "error",
};

function showAnswer(answer) {
  $("answer-empty").hidden = true;
  $("answer-body").hidden = false;
  $("answer-details").hidden = false;
  $("answer-text").textContent = answer.answer || "(no answer)";
  const outcome = OUTCOMES[answer.outcome] || "other";
  const badge = $("outcome");
  badge.className = `badge ${outcome}`;
  badge.textContent = answer.outcome;
  $("reason").textContent = answer.reason || "";
  $("program").textContent =
    answer.program === "uncompiled"
      ? "Answered by the uncompiled program"
      : `Answered by the compiled program ${answer.program}`;

  const list = $("citations");
  list.replaceChildren(
    ...answer.citations.map((citation) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "citation";
      button.setAttribute("aria-pressed", "false");
      button.textContent = `${citation.doc} · page ${citation.page} · ${citation.kind}`;
      button.addEventListener("click", () => showCitation(citation, button));
      item.append(button);
      return item;
    }),
  );
  $("citations-empty").hidden = answer.citations.length > 0;

  const untraced = answer.untraced_numbers || [];
  $("untraced").hidden = !untraced.length;
  $("untraced").textContent = untraced.length
    ? `Numbers in the working not found in any cited passage: ${untraced.join(", ")}`
    : "";

  $("working-block").hidden = !answer.working;
  $("working").textContent = answer.working || "";

  const cost = [plural(answer.lm_calls, "LM call")];
  if (answer.cached_calls) cost.push(`${answer.cached_calls} cached`);
  cost.push(`${answer.tokens.toLocaleString()} tokens`, seconds(answer.seconds));
  $("cost").textContent = `Cost: ${cost.join(" · ")}`;
}

// ---------------------------------------------------------------- the cited page

function resetSource() {
  state.sourceRequest += 1;
  state.highlight = null;
  $("source-empty").hidden = false;
  $("source-caption").hidden = true;
  $("source-error").hidden = true;
  $("source-body").hidden = true;
  $("page-image").removeAttribute("src");
  $("page-image").alt = "";
}

async function showCitation(citation, button) {
  for (const other of document.querySelectorAll("#citations .citation")) {
    other.setAttribute("aria-pressed", String(other === button));
  }
  const request = ++state.sourceRequest;
  const image = $("page-image");
  const caption = $("source-caption");
  $("source-empty").hidden = true;
  $("source-error").hidden = true;
  caption.hidden = false;
  caption.textContent = `Loading page ${citation.page} of ${citation.doc}…`;
  $("source-body").hidden = false;
  image.removeAttribute("src");
  $("cited-text").textContent = citation.text || "(the passage's text is no longer in the index)";
  scrollToSource();

  const url =
    `/v1/filings/${encodeURIComponent(citation.doc)}/pages/${citation.page}.png` +
    `?passage=${encodeURIComponent(citation.passage_id)}`;
  try {
    // fetched (not an <img src>) so the token goes with it; shown as a data: URL (CSP)
    const blob = await (await api(url)).blob();
    const source = await dataUrl(blob);
    if (request !== state.sourceRequest) return;
    image.alt = `Page ${citation.page} of ${citation.doc}, the cited ${citation.kind} highlighted in yellow`;
    image.src = source;
    await image.decode().catch(() => {});
    if (request !== state.sourceRequest) return;
    state.highlight = highlightOf(image);
    const where = `${citation.doc}, page ${citation.page}`;
    caption.textContent = state.highlight
      ? `${where}: the cited ${citation.kind} is highlighted.`
      : `${where}: the cited ${citation.kind} could not be marked on the page; its text is below.`;
    showHighlight();
  } catch (error) {
    if (request !== state.sourceRequest) return;
    caption.hidden = true;
    $("source-error").hidden = false;
    $("source-error").textContent = `The page image could not be shown: ${error.message}`;
  }
}

function scrollToSource() {
  const panel = $("source-panel");
  const box = panel.getBoundingClientRect();
  if (box.top >= 0 && box.top < window.innerHeight - 120) return;
  const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  panel.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "start" });
}

function dataUrl(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new ApiError(0, "the image could not be read"));
    reader.readAsDataURL(blob);
  });
}

/** Where the server's yellow highlight is on `image`, in image pixels, or null. */
function highlightOf(image) {
  const width = image.naturalWidth;
  const height = image.naturalHeight;
  if (!width || !height) return null;
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(0, 0, width, height).data;
  let top = height;
  let bottom = -1;
  let left = width;
  for (let y = 0; y < height; y += 2) {
    for (let x = 0; x < width; x += 2) {
      const at = (y * width + x) * 4;
      const [red, green, blue] = [pixels[at], pixels[at + 1], pixels[at + 2]];
      if (red > 200 && green > 190 && blue < 180 && red - blue > 60) {
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
        left = Math.min(left, x);
      }
    }
  }
  return bottom < 0 ? null : { top, bottom, left };
}

/** Scroll the page frame so the highlighted passage is in view, a little above it too. */
function showHighlight() {
  const frame = $("page-frame");
  const image = $("page-image");
  const mark = state.highlight;
  if (!mark || !image.naturalWidth) {
    frame.scrollTo(0, 0);
    return;
  }
  const scale = image.clientWidth / image.naturalWidth;
  const above = Math.min(48, frame.clientHeight / 4);
  frame.scrollTo(Math.max(0, mark.left * scale - 16), Math.max(0, mark.top * scale - above));
}

function toggleZoom() {
  const button = $("zoom-button");
  const whole = button.getAttribute("aria-pressed") !== "true";
  button.setAttribute("aria-pressed", String(whole));
  $("page-frame").classList.toggle("whole", whole);
  showHighlight();
}

// ---------------------------------------------------------------- uploads

async function upload(event) {
  event.preventDefault();
  if (state.uploading) return;
  const file = $("upload-file").files[0];
  if (!file) {
    uploadMessage("error", "Choose a filing first.");
    $("upload-file").focus();
    return;
  }
  setUploading(true);
  const progress = $("upload-progress");
  progress.hidden = false;
  progress.value = 0;
  $("upload-stages").hidden = true;
  uploadMessage("info", `Uploading ${file.name}…`);
  let reached = null;
  try {
    let job = await send(file, (share) => {
      progress.value = Math.round(share * 100);
    });
    progress.value = 100;
    for (;;) {
      if (job.state === "failed") {
        setStage("running", true); // a job fails while it runs, however briefly
        uploadMessage("error", `${job.file} could not be indexed: ${job.error}`);
        break;
      }
      reached = job.state;
      setStage(job.state);
      if (job.state === "done") {
        const size = [job.pages && plural(job.pages, "page"), plural(job.passages || 0, "passage")];
        uploadMessage("done", `${job.doc_id} is indexed: ${size.filter(Boolean).join(", ")}.`);
        await loadFilings();
        break;
      }
      uploadMessage("info", `${job.doc_id}: ${job.state === "queued" ? "waiting its turn" : "indexing"}…`);
      await sleep(POLL_MS);
      job = await (await api(`/v1/jobs/${encodeURIComponent(job.id)}`)).json();
    }
  } catch (error) {
    if (reached) setStage(reached, true);
    const why = {
      401: "this server needs an access token (enter it above)",
      413: `too big: ${error.message}`,
      415: `not a filing this server reads: ${error.message}`,
    };
    uploadMessage(
      "error",
      reached === null
        ? `Upload refused: ${why[error.status] || error.message}`
        : `The upload's job could not be followed: ${error.message}`,
    );
  } finally {
    setUploading(false);
  }
}

/** POST the file as the raw body (XMLHttpRequest: fetch reports no upload progress). */
function send(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/v1/filings?name=${encodeURIComponent(file.name)}`);
    if (state.token) xhr.setRequestHeader("Authorization", `Bearer ${state.token}`);
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener("load", () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText));
        } catch {
          reject(new ApiError(xhr.status, "the server's reply could not be read"));
        }
        return;
      }
      if (xhr.status === 401) askForToken();
      reject(new ApiError(xhr.status, detailOf(xhr.responseText, xhr.status, xhr.statusText)));
    });
    xhr.addEventListener("error", () =>
      reject(new ApiError(0, "the upload did not reach the server")),
    );
    xhr.send(file);
  });
}

function setUploading(uploading) {
  state.uploading = uploading;
  disable($("upload-button"), uploading);
  $("upload-form").setAttribute("aria-busy", String(uploading));
}

/** Mark `stage` as the current one (`failed`: where it failed), the ones before as passed. */
function setStage(stage, failed = false) {
  const stages = $("upload-stages");
  stages.hidden = false;
  const at = STAGES.indexOf(stage);
  for (const item of stages.children) {
    const index = STAGES.indexOf(item.dataset.stage);
    const classes = [];
    if (index < at || (index === at && stage === "done")) classes.push("passed");
    if (index === at) classes.push(failed ? "failed" : "current");
    item.className = classes.join(" ");
    if (index === at) item.setAttribute("aria-current", "step");
    else item.removeAttribute("aria-current");
  }
}

function uploadMessage(kind, message) {
  const box = $("upload-message");
  box.className = kind;
  box.textContent = message;
}

// ---------------------------------------------------------------- small helpers

function span(className, text) {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}

/** Disable or enable `button`; one that had the focus gets it back when enabled again
 * (a disabled button drops it, which would leave a keyboard user at the top of the page). */
function disable(button, disabled) {
  if (disabled) {
    button.dataset.hadFocus = String(document.activeElement === button);
    button.disabled = true;
    return;
  }
  button.disabled = false;
  const lost = !document.activeElement || document.activeElement === document.body;
  if (button.dataset.hadFocus === "true" && lost) button.focus();
  delete button.dataset.hadFocus;
}

/** `text` with its first letter a capital (the server's messages start in lower case). */
function sentence(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

function hint(text) {
  const element = document.createElement("p");
  element.className = "hint";
  element.textContent = text;
  return element;
}

function plural(count, one, many = `${one}s`) {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`;
}

function seconds(value) {
  return `${(value || 0).toFixed(value >= 10 ? 0 : 2)} s`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------- start

$("ask-form").addEventListener("submit", ask);
$("question").addEventListener("keydown", onQuestionKey);
$("company").addEventListener("change", renderDocuments);
$("token-form").addEventListener("submit", useToken);
$("upload-form").addEventListener("submit", upload);
$("zoom-button").addEventListener("click", toggleZoom);
$("upload-link").addEventListener("click", (event) => {
  event.preventDefault();
  $("upload-panel").scrollIntoView({ block: "start" });
  $("upload-file").focus({ preventScroll: true });
});
loadFilings();
