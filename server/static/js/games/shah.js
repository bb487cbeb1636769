export { render, describeAction, describeEvent, describeOutcome } from "./generic.js";
