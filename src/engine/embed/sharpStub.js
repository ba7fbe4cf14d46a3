// transformers.js imports `sharp` for image pipelines at start-up; memory only embeds text.
module.exports = function sharp() { throw new Error('image processing is not available in Memory for VS Code'); };
